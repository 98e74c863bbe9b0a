"""Candidate documents for a schema location: small values built from what the schema says, placed where the
location applies inside a whole document of the file.

The values come from the schema itself — ``const``, ``enum``, ``examples``, ``default``, the boundary values of
``minimum``/``maximum``/``minLength``/``minItems``, a sample of each ``format``, a string a ``pattern`` accepts,
objects with their required properties and each optional one, an unknown property (for a closed object) — and,
through ``$ref``/``$dynamicRef``/``$recursiveRef`` and the applicators, from every schema that applies to the
same value. Nothing here decides validity: every document is checked against the whole schema by a checker
(:mod:`codegen.compat.witness`); the generator only aims at documents that are likely to be valid and close to
the boundaries where two versions differ.
"""

from __future__ import annotations

import functools
import math
import random
import re
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import referencing
import referencing.exceptions
from referencing.jsonschema import lookup_recursive_ref
from rstr.xeger import Xeger  # type: ignore[import-untyped,unused-ignore]

from .folder import Folder

Step = tuple[Any, ...]  # ("same",) | ("prop", name) | ("item",) | ("prefix", index) | ("extra",) | ("pattern", regex)
_NONE = object()
_STOP = object()
_NO_REFERENCES: list[tuple[Any, Any]] = []  # never changed: callers only read it
ANY_VALUES: tuple[Any, ...] = (None, True, 0, 0.5, "", "a", [], {})
UNKNOWN_KEY = "x-witness"  # a property name no schema of the corpus declares: probes closed objects
# a sample of each format the specification defines, so that values of a formatted string are valid
FORMAT_SAMPLES = {
    "date": "2000-01-01",
    "date-time": "2000-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "a@example.org",
    "idn-email": "a@example.org",
    "hostname": "example.org",
    "idn-hostname": "example.org",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.org/a",
    "iri": "https://example.org/a",
    "uri-reference": "a",
    "iri-reference": "a",
    "uri-template": "https://example.org/{a}",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0/a",
    "regex": "a",
}
# a value of each internationalized format that its ASCII form rejects (an IRI that is no URI, RFC 3987 §2.2): the
# witness of a narrowing from iri to uri or from iri-reference to uri-reference (tried after the plain strings)
BEYOND_ASCII = {"iri": "https://example.org/\u00e9", "iri-reference": "\u00e9"}
_PATTERN_PROBES = ("a", "A", "0", "1", "a1", "a-a", "a_a", "a.a", "a:a", "a/a", "x-a", "1.0.0", "1.0", "https://example.org/a", "a@a.a")
_PATTERN_DRAWS = 4
MAX_DEPTH = 8
PER_NODE = 40


def instance_path(path: list[tuple[Any, Any, Step]]) -> list[Any]:
    """Where the path's last schema applies in the documents :meth:`Generator.documents` builds along it."""
    out: list[Any] = []
    for _, _, step in path[:-1]:
        if step[0] == "prop":
            out.append(step[1])
        elif step[0] == "item":
            out.append(0)
        elif step[0] == "prefix":
            out.append(step[1])
        elif step[0] == "extra":
            out.append(UNKNOWN_KEY)
        elif step[0] == "pattern":
            out += pattern_strings(step[1])[:1]
    return out


def generator(folder: Folder, name: str, deadline: float) -> Generator:
    """The folder's generator for file ``name`` (built once: its candidates are reused), given a new deadline."""
    made = folder.generators.get(name)
    if not isinstance(made, Generator):
        made = folder.generators[name] = Generator(folder, name, deadline)
    made.deadline = deadline
    return made


class _ShortRepeats(random.Random):
    """A seeded generator for rstr whose repetitions (``*``, ``+``, ``{2,}``: drawn with ``randint``) stay at
    most two past their minimum, so that samples are short enough to read in a witness."""

    def randint(self, a: int, b: int) -> int:
        return super().randint(a, min(b, a + 2))


def pattern_strings(pattern: str) -> list[str]:
    """A few strings that ``pattern`` accepts, in the Python ``re`` reading of the ECMA-262 expression (none when
    it does not compile): the expression's literal prefix and a few common words (short, readable witnesses),
    then strings drawn from the expression itself by rstr's ``Xeger`` (deterministic: fixed seeds), so that an
    expression none of the words match still has its samples. Each is kept only if the expression matches it
    (rstr does not honour lookarounds or backreferences); every witness built from them is checked anyway."""
    return list(_pattern_strings(pattern))


@functools.lru_cache(maxsize=4096)
def _pattern_strings(pattern: str) -> tuple[str, ...]:
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return ()
    drawn = []
    for seed in range(_PATTERN_DRAWS):
        try:
            drawn.append(Xeger(_ShortRepeats(seed)).xeger(compiled))
        except Exception:  # an expression rstr cannot expand (a construct it does not know): the words below
            break
    literal = re.match(r"\^?((?:\\.|[^\\.^$*+?()\[\]{}|])*)", pattern)
    prefix = re.sub(r"\\(.)", r"\1", literal.group(1)) if literal else ""
    out: list[str] = []
    for sample in (prefix, prefix + "a", prefix + "0", prefix + "a0", *_PATTERN_PROBES, *drawn):
        if sample not in out and compiled.search(sample):
            out.append(sample)
    return tuple(out[:3])


class Generator:
    """Candidate values for the schemas of one folder, documents for one of its files."""

    def __init__(self, folder: Folder, name: str, deadline: float) -> None:
        self.folder, self.name, self.deadline = folder, name, deadline
        self.spec = folder.specification(name)
        self._candidates: dict[int, list[Any]] = {}
        self._minimal: dict[int, Any] = {}
        self._busy: set[int] = set()
        self._parts: dict[int, tuple[dict[str, tuple[Any, Any]], list[str]]] = {}
        self._plans: dict[int, tuple[list[str], list[tuple[str, list[str]]]]] = {}
        self._tainted: set[int] = set()
        self._paths: dict[int, list[tuple[Any, Any, Step]]] | None = None
        self._walk: tuple[deque[Any], set[int], list[tuple[list[tuple[Any, Any, Step]], int]]] | None = None
        self._cut = False  # a value was cut short by recursion while building: not the node's own candidates
        # what :meth:`references` and :meth:`enter` answered, by the identity of their arguments (both are pure; the
        # arguments are kept in the value so that their ids stay theirs): the same resolver objects then flow on,
        # and each referencing lookup (a JSON pointer walked segment by segment) is done once per node and scope
        self._references: dict[tuple[int, int], tuple[Any, Any, list[tuple[Any, Any]]]] = {}
        self._entered: dict[tuple[int, int], tuple[Any, Any, Any]] = {}
        self._steps: dict[tuple[int, int, Step], tuple[Any, Any, Any]] = {}  # documents' steps, by node, resolver, step

    # ------------------------------------------------------------------------------------- the schema graph

    def enter(self, resolver: Any, child: Any) -> Any:
        if not isinstance(child, dict) or not self.spec.id_of(child):
            return resolver
        key = (id(resolver), id(child))
        known = self._entered.get(key)
        if known is None:
            known = self._entered[key] = (resolver, child, resolver.in_subresource(self.spec.create_resource(child)))
        return known[2]

    def references(self, node: dict[str, Any], resolver: Any) -> list[tuple[Any, Any]]:
        """The schemas ``node``'s ``$ref``, ``$dynamicRef`` (dynamic scope: the resolver remembers the path taken)
        and ``$recursiveRef`` point to, each with its resolver; an unresolvable one is left out."""
        if "$ref" not in node and "$dynamicRef" not in node and "$recursiveRef" not in node:
            return _NO_REFERENCES  # most schemas: nothing to remember
        key = (id(node), id(resolver))
        known = self._references.get(key)
        if known is None:
            known = self._references[key] = (node, resolver, self._references_of(node, resolver))
        return known[2]

    def _references_of(self, node: dict[str, Any], resolver: Any) -> list[tuple[Any, Any]]:
        out = []
        for key in ("$ref", "$dynamicRef"):
            if isinstance(node.get(key), str):
                try:
                    resolved = resolver.lookup(node[key])
                except (referencing.exceptions.Unresolvable, LookupError, ValueError, TypeError):
                    continue
                out.append((resolved.contents, resolved.resolver))
        if node.get("$recursiveRef") == "#":
            try:
                resolved = lookup_recursive_ref(resolver)
                out.append((resolved.contents, resolved.resolver))
            except (referencing.exceptions.Unresolvable, LookupError):
                pass
        return out

    def edges(self, node: Any, resolver: Any) -> Iterator[tuple[Step, Any, Any]]:
        """Each subschema of ``node`` with where it applies relative to ``node``'s instance."""
        if not isinstance(node, dict):
            return
        for target, resolver_ in self.references(node, resolver):
            yield ("same",), target, resolver_
        for key in ("allOf", "anyOf", "oneOf"):
            for member in node.get(key) or [] if isinstance(node.get(key), list) else []:
                yield ("same",), member, self.enter(resolver, member)
        for key in ("if", "then", "else"):
            if isinstance(node.get(key), dict):
                yield ("same",), node[key], self.enter(resolver, node[key])
        for key in ("dependentSchemas", "dependencies"):
            if isinstance(node.get(key), dict):
                for member in node[key].values():
                    if isinstance(member, dict):
                        yield ("same",), member, self.enter(resolver, member)
        if isinstance(node.get("properties"), dict):
            for prop, member in node["properties"].items():
                yield ("prop", prop), member, self.enter(resolver, member)
        if isinstance(node.get("patternProperties"), dict):
            for regex, member in node["patternProperties"].items():
                yield ("pattern", regex), member, self.enter(resolver, member)
        for key in ("additionalProperties", "unevaluatedProperties"):
            if isinstance(node.get(key), dict):
                yield ("extra",), node[key], self.enter(resolver, node[key])
        items = node.get("items")
        if isinstance(items, list):
            for i, member in enumerate(items):
                yield ("prefix", i), member, self.enter(resolver, member)
        for key in ("items", "additionalItems", "contains", "unevaluatedItems"):
            if isinstance(node.get(key), dict):
                yield ("item",), node[key], self.enter(resolver, node[key])
        for i, member in enumerate(node.get("prefixItems") or [] if isinstance(node.get("prefixItems"), list) else []):
            yield ("prefix", i), member, self.enter(resolver, member)

    def root(self) -> tuple[Any, Any]:
        return self.folder.files[self.name], self.folder.resolver(self.name)

    def reachable(self, limit: int = 5000) -> Iterator[list[tuple[Any, Any, Step]]]:
        """Every schema node reachable from the file's root, breadth first, each with the path that reaches it,
        while at most ``limit`` nodes are known. The walk is kept: every later call (:meth:`path_to`, the
        exploration of :func:`codegen.compat.witness.explore`) reads it and walks on only past its end."""
        if self._walk is None:
            contents, resolver = self.root()
            self._walk = (deque([[(contents, resolver, ("same",))]]), {id(contents)}, [])
        queue, seen, done = self._walk
        i = 0
        while True:
            if i == len(done):
                if not queue or len(seen) > limit:
                    return
                path = queue.popleft()
                done.append((path, len(seen)))  # with the number of nodes known when it was reached
                node, here, _ = path[-1]
                for step, child, resolver_ in self.edges(node, here):
                    if id(child) in seen or not isinstance(child, dict):
                        continue
                    seen.add(id(child))
                    queue.append([*path[:-1], (node, here, step), (child, resolver_, ("same",))])
            path, known = done[i]
            if known > limit:
                return
            yield path
            i += 1

    def path_to(self, target: Any) -> list[tuple[Any, Any, Step]] | None:
        """The shortest path from the file's root to ``target`` (the walk is done once per generator)."""
        if self._paths is None:
            self._paths = {}
            for path in self.reachable():
                self._paths.setdefault(id(path[-1][0]), path)
        return self._paths.get(id(target))

    # ------------------------------------------------------------------------------------------ values

    def valid(self, node: Any, resolver: Any, value: Any) -> bool:
        try:
            checker = self.folder.checker(self.name).evolve(schema=node, _resolver=resolver)
            return bool(checker.is_valid(value))
        except (referencing.exceptions.Unresolvable, RecursionError, ValueError, TypeError, LookupError, AttributeError):
            return False

    def minimal(self, node: Any, resolver: Any, depth: int = 0) -> Any:
        """The first candidate the subschema accepts (or its first candidate, or ``None``)."""
        key = id(node)
        if key in self._minimal:
            return self._minimal[key]
        options = self.candidates(node, resolver, depth)
        found = next((v for v in options[:12] if self.valid(node, resolver, v)), options[0] if options else None)
        if key not in self._busy:
            self._minimal[key] = found
        return found

    def candidates(self, node: Any, resolver: Any, depth: int = 0) -> list[Any]:
        if node is True:
            return list(ANY_VALUES)
        if not isinstance(node, dict):
            return []
        key = id(node)
        if key in self._candidates:
            return self._candidates[key]
        if key in self._busy or depth > MAX_DEPTH or time.process_time() > self.deadline:
            self._cut = True
            return self._literal(node) or [None]
        self._busy.add(key)
        outer, self._cut = self._cut, False
        try:
            out = self._build(node, resolver, depth)
        finally:
            self._busy.discard(key)
            cut, self._cut = self._cut, outer or self._cut
        unique: list[Any] = []
        seen: set[str] = set()
        for value in out:
            text = repr(value)
            if text not in seen:
                seen.add(text)
                unique.append(value)
        self._candidates[key] = unique[:PER_NODE]
        if cut:
            self._tainted.add(key)
        return unique[:PER_NODE]

    def fresh(self, node: Any, resolver: Any) -> list[Any]:
        """The candidates of ``node`` computed from it (the cached ones were cut short where a schema reached
        itself while it was being built: a recursive schema's inner node then only saw a placeholder)."""
        if id(node) in self._tainted:
            self._tainted.discard(id(node))
            del self._candidates[id(node)]
        return self.candidates(node, resolver)

    def _literal(self, node: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        if "const" in node:
            out.append(node["const"])
        if isinstance(node.get("enum"), list):
            out.extend(node["enum"])
        if isinstance(node.get("examples"), list):
            out.extend(node["examples"][:3])
        if "default" in node:
            out.append(node["default"])
        return out

    def _types(self, node: dict[str, Any]) -> list[str]:
        declared = node.get("type")
        if isinstance(declared, str):
            return [declared]
        if isinstance(declared, list):
            return [t for t in declared if isinstance(t, str)]
        inferred = []
        if any(k in node for k in ("properties", "required", "additionalProperties", "patternProperties", "minProperties")):
            inferred.append("object")
        if any(k in node for k in ("items", "prefixItems", "minItems", "contains")):
            inferred.append("array")
        if any(k in node for k in ("minLength", "maxLength", "pattern", "format")):
            inferred.append("string")
        if any(k in node for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
            inferred.append("number")
        return inferred

    def _build(self, node: dict[str, Any], resolver: Any, depth: int) -> list[Any]:
        out = self._literal(node)
        types = self._types(node)
        same = [(child, r) for step, child, r in self.edges(node, resolver) if step == ("same",)]
        if not types and not same and "const" not in node and "enum" not in node:
            types = ["null", "boolean", "integer", "number", "string", "array", "object"]
        for kind in types:
            out.extend(self._of_type(kind, node, resolver, depth))
        for child, r in same:
            for value in self.candidates(child, r, depth + 1)[:12]:
                out.append(self.complete(node, resolver, value, depth) if isinstance(value, dict) else value)
        return out

    def _of_type(self, kind: str, node: dict[str, Any], resolver: Any, depth: int) -> list[Any]:
        if kind == "null":
            return [None]
        if kind == "boolean":
            return [False, True]
        if kind in ("integer", "number"):
            return self._numbers(node, kind == "integer")
        if kind == "string":
            return self._strings(node)
        if kind == "array":
            return self._arrays(node, resolver, depth)
        if kind == "object":
            return self._objects(node, resolver, depth)
        return []

    def _numbers(self, node: dict[str, Any], integer: bool) -> list[Any]:
        out: list[Any] = []
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            bound = node.get(key)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool) and math.isfinite(bound):
                for value in (bound, bound + 1, bound - 1, bound + 0.5, bound - 0.5):
                    out.append(int(value) if float(value).is_integer() else value)
        step = node.get("multipleOf")
        if isinstance(step, (int, float)) and not isinstance(step, bool):
            out += [step, step * 2]
        out += [0, 1, -1, 2, 10, 100]
        if not integer:
            out += [0.5, 1.5]
        return out

    def _strings(self, node: dict[str, Any]) -> list[Any]:
        out: list[Any] = []
        fmt = node.get("format")
        if isinstance(fmt, str) and fmt in FORMAT_SAMPLES:
            out.append(FORMAT_SAMPLES[fmt])
        if isinstance(node.get("pattern"), str):
            out += pattern_strings(node["pattern"])
        for key in ("minLength", "maxLength"):
            n = node.get(key)
            if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 64:
                out += ["a" * n, "a" * (n + 1)] + (["a" * (n - 1)] if n > 0 else [])
        beyond = [BEYOND_ASCII[fmt]] if isinstance(fmt, str) and fmt in BEYOND_ASCII else []
        return [*out, "a", "", "a b", "0", "https://example.org/a", "A", *beyond]

    def _arrays(self, node: dict[str, Any], resolver: Any, depth: int) -> list[Any]:
        prefix = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else node.get("items")
        items = node.get("items") if isinstance(node.get("items"), (dict, bool)) else True
        head = [self.minimal(m, self.enter(resolver, m), depth + 1) for m in prefix] if isinstance(prefix, list) else []
        out: list[Any] = [list(head)]
        declared = node.get("minItems")
        minimum = declared if isinstance(declared, int) and not isinstance(declared, bool) else 0
        if items is not None and items is not False:
            r = self.enter(resolver, items)
            first = self.minimal(items, r, depth + 1)
            if 0 < minimum <= 16:
                out.insert(0, [*head, *[first] * max(0, minimum - len(head))])
            for value in self.candidates(items, r, depth + 1)[:8]:
                out.append([*head, value] * max(1, minimum))
                out.append([*head, value])
        return out

    def object_parts(self, node: Any, resolver: Any, depth: int) -> tuple[dict[str, tuple[Any, Any]], list[str]]:
        """The declared properties and required names of ``node`` and of the schemas that always apply with it."""
        if id(node) in self._parts:
            return self._parts[id(node)]
        props: dict[str, tuple[Any, Any]] = {}
        required: list[str] = []
        todo: list[tuple[Any, Any]] = [(node, resolver)]
        seen: set[int] = set()
        while todo and len(seen) < 64:
            here, r = todo.pop(0)
            if not isinstance(here, dict) or id(here) in seen:
                continue
            seen.add(id(here))
            for name, member in (here.get("properties") or {}).items() if isinstance(here.get("properties"), dict) else []:
                props.setdefault(name, (member, self.enter(r, member)))
            for name in here.get("required") or [] if isinstance(here.get("required"), list) else []:
                if isinstance(name, str) and name not in required:
                    required.append(name)
            todo += self.references(here, r)
            for member in here.get("allOf") or [] if isinstance(here.get("allOf"), list) else []:
                todo.append((member, self.enter(r, member)))
        self._parts[id(node)] = (props, required)
        return props, required

    def _plan_of(self, node: Any, resolver: Any, depth: int = 0) -> tuple[list[str], list[tuple[str, list[str]]]]:
        plan = self._plans.get(id(node))
        if plan is None:
            plan = self._plans[id(node)] = self._plan(node, resolver, depth)
        return plan

    def _plan(self, node: Any, resolver: Any, depth: int) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """What :meth:`complete` adds to an object of ``node``: the required names, and the names each present
        property requires (``dependentRequired``, draft-04's array form of ``dependencies``)."""
        _, required = self.object_parts(node, resolver, depth)
        dependent: list[tuple[str, list[str]]] = []
        for key in ("dependentRequired", "dependencies"):
            table = node.get(key) if isinstance(node, dict) else None
            if isinstance(table, dict):
                for present, needed in table.items():
                    if isinstance(needed, list):
                        dependent.append((present, [n for n in needed if isinstance(n, str)]))
        return required, dependent

    def complete(self, node: Any, resolver: Any, value: dict[str, Any], depth: int) -> dict[str, Any]:
        """``value`` with each property that ``node`` requires and it lacks, at its minimal value."""
        required, dependent = self._plan_of(node, resolver, depth)
        if not required and not dependent:
            return value
        missing = [name for name in required if name not in value]
        for present, needed in dependent:
            if present in value:
                missing += [n for n in needed if n not in value and n not in missing]
        if not missing:
            return value
        props, _ = self.object_parts(node, resolver, depth)
        out = dict(value)
        for name in missing:
            member = props.get(name)
            out[name] = self.minimal(member[0], member[1], depth + 1) if member else ""
        return out

    def _objects(self, node: dict[str, Any], resolver: Any, depth: int) -> list[Any]:
        props, required = self.object_parts(node, resolver, depth)
        base: dict[str, Any] = {}
        for name in required:
            member = props.get(name)
            base[name] = self.minimal(member[0], member[1], depth + 1) if member else ""
        out: list[Any] = [base]
        for name, (member, r) in list(props.items())[:48]:
            for value in self.candidates(member, r, depth + 1)[: 6 if name in required else 3]:
                out.append(self.complete(node, resolver, {**base, name: value}, depth))
        if isinstance(node.get("dependentRequired"), dict):
            for name in node["dependentRequired"]:
                member = props.get(name)
                out.append({**base, name: self.minimal(member[0], member[1], depth + 1) if member else ""})
        out.append({**base, UNKNOWN_KEY: "a"})
        return out

    # ---------------------------------------------------------------------------------------- documents

    def _step(self, node: Any, resolver: Any, step: Step) -> Any:
        """What a step of a path does to the value below it (None: nothing; ``_STOP``: no document gets past it)."""
        kind = step[0]
        if kind == "same":
            required, dependent = self._plan_of(node, resolver)
            return (kind, node, resolver, required) if required or dependent else None  # else completing adds nothing
        if kind == "item":
            return (kind, None, None, None)
        if kind == "prefix":
            prefix = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else node.get("items")
            head = [self.minimal(m, self.enter(resolver, m), 1) for m in prefix[: step[1]]] if isinstance(prefix, list) else []
            return (kind, None, None, head)
        # "prop", "extra", "pattern": the value under one key of the node's smallest complete object
        found = self.minimal(node, resolver, 0)
        base = self.complete(node, resolver, dict(found) if isinstance(found, dict) else {}, 0)
        keys = [step[1]] if kind == "prop" else [UNKNOWN_KEY] if kind == "extra" else pattern_strings(step[1])[:1]
        if not keys:
            return _STOP
        required, dependent = self._plan_of(node, resolver)
        # the base object is complete: only a property that requires others can need completing
        fill = bool(dependent) or not all(name in base or name == keys[0] for name in required)
        return (kind, node, resolver, (base, keys[0], fill))

    def placing(self, path: list[tuple[Any, Any, Step]]) -> list[tuple[str, Any, Any, Any]] | None:
        """What each step of the path does to the value below it, innermost first (None: no document gets past a
        step). Computed once per step of the graph (paths share their beginnings; every value it is made of is itself
        computed once per node: the same either way), so that two paths that place values alike give lists holding
        the same objects."""
        steps: list[tuple[str, Any, Any, Any]] = []
        for node, resolver, step in path[:-1]:
            key = (id(node), id(resolver), step)
            known = self._steps.get(key)
            if known is None:
                known = self._steps[key] = (node, resolver, self._step(node, resolver, step))
            if known[2] is _STOP:
                return None  # no name the pattern accepts: no document reaches the path's end
            if known[2] is not None:
                steps.append(known[2])
        steps.reverse()
        return steps

    def place(self, steps: list[tuple[str, Any, Any, Any]], value: Any) -> Any:
        """The whole document with ``value`` where :meth:`placing`'s path ends."""
        for kind, node, resolver, data in steps:
            if kind == "same":
                if isinstance(value, dict) and not all(name in value for name in data):
                    value = self.complete(node, resolver, value, 0)
                elif isinstance(value, dict) and self._plans[id(node)][1]:
                    value = self.complete(node, resolver, value, 0)  # a present property may require others
            elif kind == "item":
                value = [value]
            elif kind == "prefix":
                value = [*data, value]
            else:
                base, key, fill = data
                value = {**base, key: value}
                if kind == "prop" and fill:
                    value = self.complete(node, resolver, value, 0)
        return value

    def documents(self, path: list[tuple[Any, Any, Step]], leaves: list[Any]) -> Iterator[Any]:
        """Whole documents of the file: each leaf value placed where the path's last schema applies."""
        steps = self.placing(path)
        if steps is None:
            return
        for value in leaves:
            yield self.place(steps, value)

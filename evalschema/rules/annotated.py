"""The generic rules the schemas declare (``x-unique``, ``x-references``): one interpreter for the generated table
``evalschema_models._annotated.ANNOTATED`` (see ``codegen/annotated.py``), mirrored by ``js/src/rules/annotated.ts``.

A rule applies at each instance of its ``scope`` pattern and names paths relative to it: ``*`` is every item of
an array (in order), ``~*`` every value of an object used as a map (keys in UTF-16 code-unit order, as JavaScript
compares strings, so "the later duplicate" is the same in every SDK); a name is an object member. A value of
another type matches nothing, so a schema-invalid document never raises.

- ``x-unique``: among the items at ``items``, those whose ``key`` members all have the declared type (``string``;
  ``integer``: an int, or a float with no fraction, 2.0 being 2) are keyed by them; each later item with a key
  already seen is a finding at its last key member, with the key's message parameters and ``first`` (the first
  item's last key member).
- ``x-references``: each string at ``source`` (not ``""`` when ``skip_empty``) that equals no string at
  ``target`` is a finding at its own location, its value in parameter ``param``.

Findings come rule by rule in the table's order. A document with *rows* (a large array streamed in batches: a
result set's ``results``) is judged by :class:`AnnotatedRows` instead — ``envelope`` (everything but the rows),
``rows(batch, start)``, ``finish`` — row by row, every row rule of a row before the next row, with compact state
across rows: the first index of each key of a rule whose items are the rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from itertools import repeat
from typing import Any, NamedTuple, cast

from evalschema_models._annotated import ANNOTATED
from evalschema_models.rules import RULES as LEDGER

from ..core import messages
from ..core.findings import Finding, escape_token, pointer
from ..io.compact import KeyTable
from .registry import renumbered

ARRAY_ITEM = "*"
MAP_VALUE = "~*"
_MISSING = object()

Path = tuple[str | int, ...]
Key = tuple[str | int, ...]


def _utf16(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def match(value: Any, tokens: Sequence[str], where: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every value at the pattern ``tokens`` below ``value`` (at ``where``), with its path, in document order.

    Level by level (each level in the order of the one above, so the order is a depth-first walk's): one
    generator, not one per level, and only the last level is produced lazily."""
    level: list[tuple[Path, Any]] = [(where, value)]
    for position, head in enumerate(tokens):
        last = position == len(tokens) - 1
        below: list[tuple[Path, Any]] = []
        for path, node in level:
            if head == ARRAY_ITEM:
                if not isinstance(node, list):
                    continue
                found: Iterable[tuple[Path, Any]] = (((*path, index), item) for index, item in enumerate(node))
            elif head == MAP_VALUE:
                if not isinstance(node, dict):
                    continue
                found = (((*path, name), node[name]) for name in sorted(node, key=_utf16))
            elif isinstance(node, dict) and head in node:
                found = (((*path, head), node[head]),)
            else:
                continue
            if last:
                yield from found
            else:
                below.extend(found)
        level = below
    if not tokens:
        yield where, value


def values_at(value: Any, tokens: Sequence[str]) -> list[Any]:
    """The values ``match`` gives, in its order, without their paths (which cost more than the values)."""
    level = [value]
    for head in tokens:
        if head == ARRAY_ITEM:
            level = [item for node in level if isinstance(node, list) for item in node]
        elif head == MAP_VALUE:
            level = [node[name] for node in level if isinstance(node, dict) for name in sorted(node, key=_utf16)]
        else:
            level = [node[head] for node in level if isinstance(node, dict) and head in node]
    return level


@cache  # a pattern compiled once (a Rule is a NamedTuple: it holds no cache of its own)
def _values_function(tokens: tuple[str, ...]) -> Callable[[Any], list[Any]]:
    """``values_at`` for one pattern, for a membership test (the order of a map's values is not kept): a pattern
    ``name/*/name`` (a row's references: ``constraint_violations/*/grader_id``) in one comprehension."""
    if len(tokens) == 3 and tokens[1] == ARRAY_ITEM and not {tokens[0], tokens[2]} & {ARRAY_ITEM, MAP_VALUE}:
        outer, _, inner = tokens

        def name_item_name(value: Any) -> list[Any]:
            items = value.get(outer) if isinstance(value, dict) else None
            if not isinstance(items, list):
                return []
            return [item[inner] for item in items if isinstance(item, dict) and inner in item]

        return name_item_name
    return lambda value: values_at(value, tokens)


class _Member(NamedTuple):
    member: str
    type: str
    param: str


def _key(item: Any, key: tuple[_Member, ...]) -> Key | None:
    """The item's key, or None when it is not an object or a key member is missing or of another type."""
    if not isinstance(item, dict):
        return None
    out: list[str | int] = []
    for m in key:
        value = item.get(m.member)
        if m.type == "string":
            if not isinstance(value, str):
                return None
        elif type(value) is float and value.is_integer():
            value = int(value)  # 2.0 is 2 in JSON
        elif type(value) is not int:
            return None
        out.append(value)
    return tuple(out)


def _key_function(key: tuple[_Member, ...]) -> Callable[[Any], Key | None]:
    """``_key`` for these members, with the common case first: every member present with exactly its type."""
    if len(key) != 2:
        return lambda item: _key(item, key)
    (first, second), (first_type, second_type) = ((m.member for m in key), (str if m.type == "string" else int for m in key))

    def pair(item: Any) -> Key | None:
        if isinstance(item, dict):
            a, b = item.get(first), item.get(second)
            if type(a) is first_type and type(b) is second_type:
                return (a, b)
        return _key(item, key)

    return pair


def _string_and_integer(key: tuple[_Member, ...]) -> tuple[str, str] | None:
    """(the string member, the integer member) of a key made of one of each, else None."""
    strings = [m.member for m in key if m.type == "string"]
    integers = [m.member for m in key if m.type == "integer"]
    return (strings[0], integers[0]) if len(strings) == len(integers) == 1 and len(key) == 2 else None


# A key of one integer and one string, as bytes: the general encoding below, written out (the row-key fast path in
# ``AnnotatedRows._keyed`` uses it directly, ``_decoded`` reads it back)
_INTEGER_AND_STRING = b"%x;%s"


def _compact_encoder(types: tuple[str, ...]) -> Callable[[Key], bytes]:
    """Keys of these member types as bytes for a :class:`KeyTable`, with no separator ambiguity: the integers first
    (hex, each ended by ``;``), then the strings (UTF-8, each but the last prefixed by its length)."""
    ints = [i for i, t in enumerate(types) if t == "integer"]
    strings = [i for i, t in enumerate(types) if t == "string"]
    if len(ints) == 1 and len(strings) == 1:  # the common composite key: one call of the % operator
        n, s = ints[0], strings[0]
        return lambda key: _INTEGER_AND_STRING % (cast(int, key[n]), cast(str, key[s]).encode("utf-8", "surrogatepass"))

    def encode(key: Key) -> bytes:
        parts = [b"%x;" % cast(int, key[i]) for i in ints]
        data = [cast(str, key[i]).encode("utf-8", "surrogatepass") for i in strings]
        parts += [b"%x:%s" % (len(d), d) for d in data[:-1]] + data[-1:]
        return b"".join(parts)

    return encode


class Rule(NamedTuple):
    """One entry of the table."""

    keyword: str
    rule: str
    variant: str
    scope: tuple[str, ...]
    items: tuple[str, ...] = ()
    key: tuple[_Member, ...] = ()
    source: tuple[str, ...] = ()
    target: tuple[str, ...] = ()
    param: str = ""
    skip_empty: bool = False

    @property
    def severity(self) -> Any:
        return LEDGER[self.rule]["severity"]

    def findings(self, value: Any, where: Path) -> Iterator[Finding]:
        """The findings of this rule in one instance of its scope (``value`` at ``where``)."""
        if self.keyword == "x-unique":
            yield from self._unique(match(value, self.items, where), {})
        else:
            if self.resolved(value):
                return  # the common case, found without building a path
            targets = {v for v in values_at(value, self.target) if isinstance(v, str)}
            for path, ref in match(value, self.source, where):
                if not self._resolved(ref, targets):
                    message = messages.render(self.rule, self.variant, **{self.param: ref}, defined=messages.ordered(targets))
                    yield Finding(pointer(*path), self.rule, self.severity, message)

    def resolved(self, value: Any) -> bool:
        """Whether an ``x-references`` rule finds nothing in ``value`` (an instance of its scope): most rows, told
        apart without a path or a generator."""
        sources = _values_function(self.source)(value)
        if not sources:
            return True
        targets = {v for v in _values_function(self.target)(value) if isinstance(v, str)}
        return all(self._resolved(ref, targets) for ref in sources)

    def _resolved(self, ref: Any, targets: set[str]) -> bool:
        """Whether a source value is no finding: not a string, an empty one skipped, or a target's."""
        return not isinstance(ref, str) or (self.skip_empty and ref == "") or ref in targets

    def _unique(self, items: Iterator[tuple[Path, Any]], seen: dict[Key, Path]) -> Iterator[Finding]:
        for path, item in items:
            key = _key(item, self.key)
            if key is None:
                continue
            first = seen.setdefault(key, path)
            if first is not path:
                yield self.duplicate(path, key, pointer(*first, self.key[-1].member))

    def duplicate(self, path: Path, key: Key, first: str) -> Finding:
        params: dict[str, Any] = {m.param: part for m, part in zip(self.key, key)}
        message = messages.render(self.rule, self.variant, **params, first=first)
        return Finding(pointer(*path, self.key[-1].member), self.rule, self.severity, message)


def _rule(entry: dict[str, Any]) -> Rule:
    return Rule(
        keyword=entry["keyword"],
        rule=entry["rule"],
        variant=entry["variant"],
        scope=tuple(entry["scope"]),
        items=tuple(entry.get("items", ())),
        key=tuple(_Member(k["member"], k["type"], k["param"]) for k in entry.get("key", ())),
        source=tuple(entry.get("source", ())),
        target=tuple(entry.get("target", ())),
        param=entry.get("param", ""),
        skip_empty=bool(entry.get("skip_empty", False)),
    )


RULES: dict[str, tuple[Rule, ...]] = {file.removesuffix(".json"): tuple(_rule(e) for e in entries) for file, entries in ANNOTATED.items()}


def rules_of(kind: str) -> tuple[Rule, ...]:
    """The generic rules of a document kind, in reporting order."""
    return RULES.get(kind, ())


def annotated_rules(kind: str, document: Any, rows: str | None = None) -> Iterator[Finding]:
    """Every finding of the generic rules of a whole document; ``rows``: the member holding its rows, judged row by
    row as :class:`AnnotatedRows` does (the same order as a stream)."""
    if rows is not None and isinstance(document, dict):
        checker = AnnotatedRows(kind, rows)
        yield from checker.envelope(document)
        batch = document.get(rows)
        if isinstance(batch, list):
            yield from checker.rows(batch)
        yield from checker.finish()
        return
    for rule in rules_of(kind):
        for where, value in match(document, rule.scope):
            yield from rule.findings(value, where)


class AnnotatedRows:
    """The generic rules of a document whose member ``array`` holds rows fed in batches: ``envelope`` with the
    document's other members, ``rows`` with each batch (``start``: the index of its first row), ``finish``.

    A rule whose scope is a row (``array/*/…``) is applied to each row; a rule at the root whose items are the rows
    (``array/*``) keeps the first index of each key across batches (in a :class:`KeyTable` when ``compact``); any
    other rule sees the envelope. A root rule that would need the rows and the envelope together is refused.
    """

    def __init__(self, kind: str, array: str, *, compact: bool = False, rules: Sequence[Rule] | None = None) -> None:
        """``rules``: these of the kind's rules only (all of them by default)."""
        self.array = array
        self.compact = compact
        self.envelope_rules: list[Rule] = []
        self.row_rules: list[tuple[Rule, tuple[str, ...], bool]] = []  # (rule, path inside the row, spans rows)
        for rule in rules_of(kind) if rules is None else rules:
            touches = [p for p in (rule.scope, rule.items, rule.source, rule.target) if p[:1] == (array,)]
            if not touches:
                self.envelope_rules.append(rule)
            elif rule.scope[:2] == (array, ARRAY_ITEM):
                self.row_rules.append((rule, rule.scope[2:], False))
            elif rule.keyword == "x-unique" and rule.scope == () and rule.items[:2] == (array, ARRAY_ITEM):
                self.row_rules.append((rule, rule.items[2:], True))
            else:
                raise ValueError(f"{rule.rule}: a rule over {array!r} that cannot be judged row by row")
        self.seen: dict[int, dict[Key, Path]] = {i: {} for i in range(len(self.row_rules))}
        self.first_rows: dict[int, dict[Key, int]] = {i: {} for i in range(len(self.row_rules))}
        # the first row of each key: row numbers, nearly always one more than the key before's (see KeyTable)
        self.tables: dict[int, KeyTable] = {i: KeyTable(runs=True) for i in range(len(self.row_rules))}
        self.encoders = [_compact_encoder(tuple(m.type for m in rule.key)) for rule, _, _ in self.row_rules]
        self.keys = [_key_function(rule.key) for rule, _, _ in self.row_rules]
        self.pairs = [_string_and_integer(rule.key) for rule, _, _ in self.row_rules]
        # (member, deeper): a row without that member (or, when the path goes deeper, with it empty) has nothing
        # for the rule; None when the path inside the row starts with a wildcard or is the row itself
        self.guards: list[tuple[str, bool] | None] = []
        for rule, rest, spans in self.row_rules:
            inner = rest + (() if spans else (rule.items if rule.keyword == "x-unique" else rule.source))
            if spans and not rest:
                inner = (rule.key[0].member,)  # a row without the first key member has no key
            named = bool(inner) and inner[0] not in (ARRAY_ITEM, MAP_VALUE)
            self.guards.append((inner[0], len(inner) > 1) if named else None)

    def envelope(self, members: dict[str, Any]) -> Iterator[Finding]:
        for rule in self.envelope_rules:
            for where, value in match(members, rule.scope):
                yield from rule.findings(value, where)

    def rows(self, batch: Sequence[Any], start: int = 0) -> Iterator[Finding]:
        """Rows ``batch``, the first of which is row ``start`` of the document: :meth:`part`, then :meth:`join`."""
        return self.join(self.part(batch), start)

    def part(self, batch: Sequence[Any]) -> list[Any]:
        """What each row rule finds in ``batch`` apart from the other rows (rows numbered from 0; picklable): a
        row-scoped rule's findings, the keys of a rule unique across rows. Per row, a rule whose paths start with a
        member the row lacks (or holds empty) is skipped before any walking: most rows have nothing to check. Each
        rule goes through the whole batch at once (most of the work in comprehensions)."""
        out: list[Any] = []
        for i, (rule, rest, spans) in enumerate(self.row_rules):
            if spans and not rest:  # the rows themselves are the items: their keys
                out.append(self._keyed(i, batch))
                continue
            rows = self._candidates(batch, 0, self.guards[i])
            if not spans and not rest and rule.keyword == "x-references":  # a row's references: most rows resolve
                rows = [(index, row) for index, row in rows if not rule.resolved(row)]
            if not spans:
                out.append(
                    [
                        (index, f)
                        for index, row in rows
                        for where, value in match(row, rest, (self.array, index))
                        for f in rule.findings(value, where)
                    ]
                )
            else:  # items below each row, unique across rows: each one's path and key
                out.append(
                    [
                        (index, path, key)
                        for index, row in rows
                        for path, item in match(row, rest, (self.array, index))
                        if (key := _key(item, rule.key)) is not None
                    ]
                )
        return out

    def join(self, part: list[Any], start: int) -> Iterator[Finding]:
        """The findings of a batch's :meth:`part`, its first row being row ``start``, after every earlier batch's:
        the keys seen in earlier rows decide the duplicates. In the order a row-by-row pass gives: by row, then by
        rule."""
        found: list[tuple[int, int, Finding]] = []
        array = escape_token(self.array)
        for i, (rule, rest, spans) in enumerate(self.row_rules):
            if spans and not rest:
                found.extend((index, i, f) for index, f in self._repeats(i, rule, part[i], start))
            elif not spans:
                found.extend(zip((start + index for index, _ in part[i]), repeat(i), renumbered((f for _, f in part[i]), array, start)))
            else:
                seen = self.seen[i]
                for index, path, key in part[i]:
                    where = (self.array, start + index, *path[2:])
                    first = seen.setdefault(key, where)
                    if first is not where:
                        found.append((start + index, i, rule.duplicate(where, key, pointer(*first, rule.key[-1].member))))
        if len(self.row_rules) > 1:
            found.sort(key=lambda item: item[:2])  # stable: one rule's findings in one row keep their order
        return (f for _, _, f in found)

    @staticmethod
    def _candidates(batch: Sequence[Any], start: int, guard: tuple[str, bool] | None) -> list[tuple[int, dict[str, Any]]]:
        """The rows (objects) a rule may have something to say about, with their indices."""
        if guard is None:
            return [(index, row) for index, row in enumerate(batch, start) if isinstance(row, dict)]
        name, deeper = guard
        return [
            (index, row)
            for index, row in enumerate(batch, start)
            if isinstance(row, dict) and (value := row.get(name, _MISSING)) is not _MISSING and (not deeper or value)
        ]

    def _keyed(self, i: int, batch: Sequence[Any]) -> tuple[list[int] | None, list[bytes] | None, list[Key] | None]:
        """The rows of ``batch`` that have a key for rule ``i``: (their indices, their keys encoded for the key
        table when ``compact``, the keys). ``None`` indices: every row, in order; ``None`` keys: only encoded."""
        key_of, pair = self.keys[i], self.pairs[i]
        if self.compact and pair is not None:
            # a key of one string and one integer, each there with exactly its type in every row of the batch (the
            # common case): encoded as ``_compact_encoder`` does, in one comprehension; any other batch the general way
            text, number = pair
            encoded = [
                _INTEGER_AND_STRING % (n, t.encode("utf-8", "surrogatepass"))
                for row in batch
                if type(row) is dict and type(t := row.get(text)) is str and type(n := row.get(number)) is int
            ]
            if len(encoded) == len(batch):
                return None, encoded, None
        keyed = [(index, key) for index, row in self._candidates(batch, 0, self.guards[i]) if (key := key_of(row)) is not None]
        keys = [key for _, key in keyed]
        encode = self.encoders[i]
        return [index for index, _ in keyed], [encode(key) for key in keys] if self.compact else None, keys

    def _repeats(
        self, i: int, rule: Rule, keyed: tuple[list[int] | None, list[bytes] | None, list[Key] | None], start: int
    ) -> Iterator[tuple[int, Finding]]:
        """Each row whose key an earlier row had, with its finding (pointing at the first such row)."""
        indices, encoded, keys = keyed
        size = len(encoded) if encoded is not None else len(keys or ())
        at = list(range(start, start + size)) if indices is None else [start + index for index in indices]
        if encoded is not None:
            repeats = self.tables[i].setdefault_many(encoded, at)
        else:
            first_rows = self.first_rows[i]
            repeats = [(p, first) for p, key in enumerate(keys or ()) if (first := first_rows.setdefault(key, at[p])) != at[p]]
        for p, first in repeats:
            key = keys[p] if keys is not None else self._decoded(i, rule, cast(list[bytes], encoded)[p])
            yield at[p], rule.duplicate((self.array, at[p]), key, pointer(self.array, first, rule.key[-1].member))

    def _decoded(self, i: int, rule: Rule, encoded: bytes) -> Key:
        """The key ``_keyed`` encoded in one comprehension (one string and one integer member) from its bytes."""
        text, _ = cast(tuple[str, str], self.pairs[i])
        number, _, string = encoded.partition(b";")
        as_text, as_int = string.decode("utf-8", "surrogatepass"), int(number, 16)
        return tuple(as_text if m.member == text else as_int for m in rule.key)

    def finish(self) -> Iterator[Finding]:
        return iter(())

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JS, ROOT } from "./helpers.js";

const CLI = join(JS, "dist", "cli.js");

/** The `evalschema-js` commands of the README's sh blocks, as argument lists (shell quotes and `< FILE` read). */
function readmeCommands(): { args: string[]; stdin: string | null }[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf-8");
  const out: { args: string[]; stdin: string | null }[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split("\n")) {
      const command = line.replace(/\s+#.*$/, "").trim();
      if (!command.startsWith("evalschema-js ")) continue;
      const [words, input] = command.split(" < ");
      const args = [...words!.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!).slice(1);
      out.push({ args, stdin: input === undefined ? null : input.trim() });
    }
  }
  return out;
}

test("every evalschema-js command in the README runs, exit 0, from the repository's root", () => {
  const commands = readmeCommands();
  assert.ok(commands.length >= 5, `${commands.length} commands found`);
  for (const { args, stdin } of commands) {
    const input = stdin === null ? undefined : readFileSync(join(ROOT, stdin));
    const out = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: "utf-8", ...(input ? { input } : {}) });
    assert.equal(out.status, 0, `${args.join(" ")}: ${out.stderr}${out.stdout.slice(-2000)}`);
    assert.ok(out.stdout.length > 0, args.join(" "));
  }
});

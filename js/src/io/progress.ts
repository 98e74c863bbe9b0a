/**
 * Progress on long reads: one line on a terminal's stderr — bytes read of the total, the rate and the time left —
 * redrawn at most a few times a second and cleared when the file is closed (Python: `evalschema.io.progress`).
 *
 * Nothing is drawn unless the command called `enable` (it does only when stderr is a terminal and `-q` was not
 * given), nor for a read that ends within PROGRESS_DELAY_SECONDS. Reads are counted where the input gate's readers
 * read (`readOpened`, JSON Lines, the stream reader), by descriptor.
 */

import { PROGRESS_DELAY_SECONDS, PROGRESS_DELAY_VARIABLE } from "../generated/constants.js";
import { visible } from "../core/display.js";

const INTERVAL_MS = 200;
const CLEAR = "\r\x1b[K";

interface Watched {
  name: string;
  total: number;
  done: number;
  started: number;
  next: number;
  drawn: boolean;
}

let terminal: NodeJS.WriteStream | null = null;
const watched = new Map<number, Watched>();

export function enable(stream: NodeJS.WriteStream): void {
  terminal = stream;
}

function delayMs(): number {
  const given = Number(process.env[PROGRESS_DELAY_VARIABLE] ?? PROGRESS_DELAY_SECONDS);
  return 1000 * (Number.isFinite(given) ? given : PROGRESS_DELAY_SECONDS);
}

function size(count: number): string {
  const units = ["B", "KiB", "MiB", "GiB"];
  let unit = 0;
  while (count >= 1024 && unit < units.length - 1) {
    count /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.round(count)} B` : `${count.toFixed(1)} ${units[unit]}`;
}

/** The progress line for `done` of `total` bytes read in `seconds`. */
export function line(name: string, done: number, total: number, seconds: number): string {
  const rate = seconds > 0 ? done / seconds : 0;
  let text = `reading ${visible(name)}: ${size(done)} of ${size(total)}`;
  if (total > 0) text += ` (${Math.min(100, Math.floor((100 * done) / total))} %)`;
  if (rate > 0) {
    text += `, ${size(rate)}/s`;
    if (total > done) text += `, ${Math.round((total - done) / rate)} s left`;
  }
  return text;
}

/** Count the reads of `fd` (a regular file of `total` bytes named `name`), when progress is on. */
export function watch(fd: number, name: string, total: number): void {
  if (terminal === null) return;
  const now = Date.now();
  watched.set(fd, { name, total, done: 0, started: now, next: now + delayMs(), drawn: false });
}

/** `count` more bytes read from `fd`. */
export function advance(fd: number, count: number): void {
  const state = watched.get(fd);
  if (state === undefined || terminal === null || count <= 0) return;
  state.done += count;
  const now = Date.now();
  if (now < state.next) return;
  state.next = now + INTERVAL_MS;
  state.drawn = true;
  terminal.write(CLEAR + line(state.name, state.done, state.total, (now - state.started) / 1000));
}

/** `fd` is being closed: its line, if drawn, is cleared. */
export function finish(fd: number): void {
  const state = watched.get(fd);
  watched.delete(fd);
  if (state?.drawn && terminal !== null) terminal.write(CLEAR);
}

/**
 * SPEC §3.1's one definition of RFC 3339 `date` and `date-time` (Python's `is_date` and `is_date_time`), as Ajv formats: the
 * validators compiled at run time and the ones generated at build time (prebuilt.ts) both take them from here.
 */

import { DATE_FIELDS, DAYS_IN_MONTH, TIME_FIELDS } from "../generated/constants.js";

// The grammar and the days table are data (spec/constants.json, generated); the algorithm is here.
const DATE_RE = new RegExp(`^(?:${DATE_FIELDS})$`);
const DATE_TIME_RE = new RegExp(`^(?:${DATE_FIELDS})[Tt](?:${TIME_FIELDS})$`);

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
}

/**
 * The number written by the ASCII digits `value[start..end)` (the regexes have checked they are digits). With
 * `test` rather than `exec`, checking a timestamp allocates no match array: a result set has two per row.
 */
function digits(value: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) n = n * 10 + (value.charCodeAt(i) - 48);
  return n;
}

function realDay(value: string): boolean {
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 7);
  const day = digits(value, 8, 10);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

/** RFC 3339 `full-date`: a real day of the proleptic Gregorian calendar, years 0000–9999. */
export function isDate(value: string): boolean {
  return DATE_RE.test(value) && realDay(value);
}

/**
 * RFC 3339 `date-time` with a mandatory time zone (`Z` or an offset), years 0000–9999; second 60 only where the
 * time moved to UTC is 23:59:60 (a leap second ends a UTC day).
 */
export function isDateTime(value: string): boolean {
  if (!DATE_TIME_RE.test(value) || !realDay(value)) return false;
  const hour = digits(value, 11, 13);
  const minute = digits(value, 14, 16);
  const second = digits(value, 17, 19);
  if (hour > 23 || minute > 59 || second > 60) return false;
  let offset = 0;
  const last = value.charCodeAt(value.length - 1);
  if (last !== 90 && last !== 122) {
    // "…±hh:mm"
    const offsetHour = digits(value, value.length - 5, value.length - 3);
    const offsetMinute = digits(value, value.length - 2, value.length);
    if (offsetHour > 23 || offsetMinute > 59) return false;
    offset = (offsetHour * 60 + offsetMinute) * (value.charCodeAt(value.length - 6) === 43 ? 1 : -1);
  }
  return second < 60 || (((hour * 60 + minute - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;
}

/** A format as Ajv takes it (`addFormat`) and as generated code calls it (`formats["date"].validate(…)`). */
export interface StringFormat {
  type: "string";
  validate: (value: string) => boolean;
}

/** The formats this specification defines itself; ajv-formats' `date` and `date-time` accept a space for `T` and
 * offsets without a colon (`+0100`), which RFC 3339 §5.6 does not. */
export const FORMATS: Readonly<Record<string, StringFormat>> = {
  date: { type: "string", validate: isDate },
  "date-time": { type: "string", validate: isDateTime },
};

// Why a value is not valid: the first part found wrong, the shape first (date, T, time, zone), then the ranges in
// reading order (the reason texts are data:
// FORMAT_PROBLEMS, spec/constants.json; the grammar is DATE_FIELDS and TIME_FIELDS). Python's `rfc3339.problem` is
// the same walk.
const DATE_PREFIX = new RegExp(`^(?:${DATE_FIELDS})`);
const TIME_RE = new RegExp(`^(?:${TIME_FIELDS})$`);

function isDigits(text: string): boolean {
  return text !== "" && [...text].every((c) => c >= "0" && c <= "9");
}

function dayProblem(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12) return "month";
  return day >= 1 && day <= daysIn(year, month) ? null : "day";
}

/** Where `hh:mm:ss` and its optional fraction end in `time` (the zone starts there), or null. */
function clockEnd(time: string): number | null {
  if (!(time.length >= 8 && isDigits(time.slice(0, 2)) && time[2] === ":" && isDigits(time.slice(3, 5)) && time[5] === ":" && isDigits(time.slice(6, 8)))) return null;
  if (time.slice(8, 9) !== ".") return 8;
  let end = 9;
  while (end < time.length && time[end]! >= "0" && time[end]! <= "9") end++;
  return end > 9 ? end : null;
}

/** Why `value` is not a valid `format` (`date` or `date-time`): a key of FORMAT_PROBLEMS, or null when it is valid (or no reason is known). */
export function formatProblem(format: string, value: unknown): string | null {
  const check = FORMATS[format];
  if (typeof value !== "string" || check === undefined || check.validate(value)) return null;
  const date = DATE_PREFIX.exec(value);
  if (date === null) return "date_shape";
  const day = dayProblem(Number(date[1]), Number(date[2]), Number(date[3]));
  const rest = value.slice(10);
  if (format === "date") return day ?? (["T", "t", " "].includes(rest.slice(0, 1)) ? "date_has_time" : "date_shape");
  if (rest === "") return "time_missing";
  if (rest[0] !== "T" && rest[0] !== "t") return "separator";
  const clock = clockEnd(rest.slice(1));
  if (clock === null) return "time_shape";
  if (clock === rest.length - 1) return "offset_missing";
  const time = TIME_RE.exec(rest.slice(1));
  if (time === null) return "offset_shape";
  if (day !== null) return day;
  const [hour, minute, second] = [Number(time[1]), Number(time[2]), Number(time[3])];
  if (hour > 23) return "hour";
  if (minute > 59) return "minute";
  if (second > 60) return "second";
  if (time[4] !== undefined && (Number(time[5]) > 23 || Number(time[6]) > 59)) return "offset_range";
  return second === 60 ? "leap_second" : null;
}

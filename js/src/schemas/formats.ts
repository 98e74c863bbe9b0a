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

const durationUnits: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Parses `30d`, `12h`, `90m`, `3600s` or `2w` into seconds; throws a message naming the text otherwise. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (!match?.[1] || !match[2])
    throw new Error(`Invalid duration ${JSON.stringify(text)}: use e.g. 30d, 12h, 90m`);
  return Number(match[1]) * (durationUnits[match[2]] ?? 1);
}

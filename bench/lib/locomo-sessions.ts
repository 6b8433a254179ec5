// LoCoMo's sessions and their dates, for bench:recall's dated mode: each session's turns saved
// at that session's date, as an agent saving along the conversation would, and the questions
// asked a day after the last session.

const DAY = 86_400;

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

/** Turns saved at one instant (epoch seconds). */
export interface SaveStep {
  at: number;
  turns: Turn[];
}

/** How a conversation is saved and when its questions are asked. */
export interface Plan {
  saves: SaveStep[];
  askAt: number;
}

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "1:56 pm on 8 May, 2023" as epoch seconds (read as UTC), or null when it is not one. */
export function sessionDate(text: string): number | null {
  const m = /^(\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) ([A-Za-z]+),? (\d{4})$/.exec(text.trim());
  if (!m) return null;
  const month = MONTHS.indexOf((m[5] as string).toLowerCase());
  if (month < 0) return null;
  const hour = (Number(m[1]) % 12) + (m[3] === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])) / 1000;
}

/** The sessions in order: session_1, session_2, ... with their date text (may be absent). */
export function sessionsOf(conversation: Record<string, unknown>) {
  return Object.keys(conversation)
    .map((key) => ({ key, m: /^session_(\d+)$/.exec(key) }))
    .filter((x): x is { key: string; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => Number(a.m[1]) - Number(b.m[1]))
    .map(({ key }) => ({
      turns: conversation[key] as Turn[],
      date: conversation[`${key}_date_time`],
    }));
}

/** Today's mode: every turn saved, and every question asked, at `now`. */
export function todayPlan(conversation: Record<string, unknown>, now: number): Plan {
  return {
    saves: [{ at: now, turns: sessionsOf(conversation).flatMap((s) => s.turns) }],
    askAt: now,
  };
}

/** The dated mode: each session at its date; the questions a day after the last session. */
export function datedPlan(conversation: Record<string, unknown>): Plan {
  const saves = sessionsOf(conversation).map((session, i) => {
    const at = typeof session.date === 'string' ? sessionDate(session.date) : null;
    if (at === null) {
      throw new Error(`session ${i + 1} has no date this bench reads: ${String(session.date)}`);
    }
    return { at, turns: session.turns };
  });
  const last = Math.max(...saves.map((s) => s.at));
  return { saves, askAt: last + DAY };
}

// Text renderings the commands share. Each returns a string or writes to the stream it is
// given: the commands decide where it goes.

// C0 controls but newline and tab, DEL and C1: what a terminal obeys (titles, the clipboard
// through OSC 52, the cursor, the screen) rather than shows.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters, on purpose
const TERMINAL_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with each control character a terminal would obey written as its escape (`\u001b`):
 * a memory's text (a token holder's, an import's, a synced note's) is shown, never run. In
 * `--json` output it is the same escape JSON uses, so the JSON still parses to the same value.
 */
export function terminalText(text: string): string {
  return text.replace(
    TERMINAL_CONTROLS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Characters as a person counts them: an emoji or an astral letter is one, not two halves. */
const width = (text: string) => [...text].length;

/**
 * Left-aligned columns two spaces apart, the header first; trailing spaces trimmed so a row
 * ends where its text does.
 */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - width(c))))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** `text` cut to `max` characters, the last one an ellipsis when it was longer. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An instant in seconds as `2026-03-02 00:00` (UTC, to the minute). */
export function utcMinute(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** What --json prints. */
export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

export interface ProgressBar {
  update(done: number, total: number): void;
  /** Ends the bar's line, if one was drawn. */
  done(): void;
}

/** A one-line bar on a terminal; a line every 10% elsewhere (a log, CI). */
export function progressBar(stream: NodeJS.WritableStream, label: string): ProgressBar {
  const tty = (stream as NodeJS.WriteStream).isTTY === true;
  let lastTenth = -1;
  let drawn = false;
  return {
    update(done, total) {
      if (total === 0) return;
      const share = done / total;
      if (tty) {
        const barWidth = 30;
        const filled = Math.round(share * barWidth);
        stream.write(
          `\r${label} [${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${done}/${total}`,
        );
        drawn = true;
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        stream.write(`${label} ${done}/${total} (${tenth * 10}%)\n`);
      }
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}

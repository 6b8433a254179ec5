/**
 * A whole number as the descriptions and messages write it: 50,000. Not `toLocaleString('en-US')`,
 * whose first call loads the locale's data: 20-60 ms of every start, paid for the tools'
 * descriptions before the first answer. Anything but a safe integer still goes through it.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? `-${out}` : out;
}

// Pure helpers for the interpreter check in python.ts.
export const MIN_PYTHON: [number, number] = [3, 10];

export function parsePythonVersion(out: string): [number, number, number] | undefined {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(out);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

export function isSupported(v: [number, number, number] | undefined): boolean {
  if (!v) return false;
  return v[0] > MIN_PYTHON[0] || (v[0] === MIN_PYTHON[0] && v[1] >= MIN_PYTHON[1]);
}

// The teams as the sidecar last listed them, kept in the extension's storage folder: a fresh
// window draws them at once and replaces them with the live list when the sidecar answers
// (its start, mostly importing Python libraries, takes a second or more).
import * as fs from 'fs';
import * as path from 'path';
import type { Team } from './protocol';

const MAX_BYTES = 1024 * 1024; // a memo bigger than this is not ours: ignored

/** The remembered teams, or undefined when there are none or the file is not a memo we wrote. */
export function readTeamsMemo(file: string): Team[] | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_BYTES) return undefined;
    const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!Array.isArray(data) || !data.every(isTeamLike)) return undefined;
    return data as Team[];
  } catch {
    return undefined;
  }
}

function isTeamLike(t: unknown): boolean {
  if (typeof t !== 'object' || t === null) return false;
  const o = t as Record<string, unknown>;
  return (
    typeof o.id === 'string' &&
    typeof o.name === 'string' &&
    typeof o.ended === 'boolean' &&
    Array.isArray(o.members) &&
    o.members.every(
      m =>
        typeof m === 'object' &&
        m !== null &&
        typeof (m as Record<string, unknown>).inbox === 'string' &&
        typeof (m as Record<string, unknown>).name === 'string',
    )
  );
}

/** Writes the memo when the teams differ from the last one written (temp file, then rename). */
export class TeamsMemo {
  private last: string | undefined;

  constructor(
    readonly file: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  read(): Team[] | undefined {
    const teams = readTeamsMemo(this.file);
    this.last = teams ? JSON.stringify(teams) : undefined;
    return teams;
  }

  write(teams: readonly Team[]): void {
    const text = JSON.stringify(teams);
    if (text === this.last) return;
    this.last = text;
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.promises
      .mkdir(path.dirname(this.file), { recursive: true })
      .then(() => fs.promises.writeFile(tmp, text))
      .then(() => fs.promises.rename(tmp, this.file))
      .catch(e => {
        this.log(`remembering the teams: ${e instanceof Error ? e.message : e}`);
        void fs.promises.rm(tmp, { force: true });
      });
  }
}

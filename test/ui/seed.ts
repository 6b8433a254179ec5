// A data dir with a few memories whose scores at T0 are known from the decay math (power law,
// half-life 3 days, beta 0.6): one gc forgets now, one by a month later, one to review, one to
// promote, and two whose content is markup a page must show as text.
import fs from 'node:fs';
import path from 'node:path';
import { JsonlFile } from '../../src/storage/jsonl/jsonl-file.js';
import { newMemoryRecord, type RelationRecord } from '../../src/storage/records.js';
import { DAY, T0 } from '../support.js';

export const IDS = {
  wifi: '00000000-0000-4000-8000-000000000001',
  cat: '00000000-0000-4000-8000-000000000002',
  review: '00000000-0000-4000-8000-000000000003',
  promote: '00000000-0000-4000-8000-000000000004',
  later: '00000000-0000-4000-8000-000000000005',
  img: '00000000-0000-4000-8000-000000000006',
  link: '00000000-0000-4000-8000-000000000007',
} as const;

export const XSS_IMG = '<img src=x onerror=alert(1)>';
export const XSS_LINK = '[click me](javascript:alert(2)) <a href="javascript:alert(3)">x</a>';

export function seedDataDir(dir: string, now = T0): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tags = (t: string[]) => ({ meta: { tags: t, source: null, context: null, extra: {} } });
  const records = [
    // Score ~0.04 now: gc forgets it.
    newMemoryRecord(
      IDS.wifi,
      'The cabin wifi password is taped inside the fuse box',
      now - 60 * DAY,
      {
        last_used: now - 60 * DAY,
        ...tags(['home']),
      },
    ),
    newMemoryRecord(IDS.cat, 'Ralph is the family cat and sleeps on the red rug', now - 10 * DAY, {
      last_used: now - 2 * DAY,
      use_count: 3,
      ...tags(['home', 'pets']),
    }),
    // Score ~0.25: in the danger zone (0.15 to 0.35).
    newMemoryRecord(
      IDS.review,
      'The dentist appointment moved to Thursday mornings',
      now - 9 * DAY,
      {
        last_used: now - 8.6 * DAY,
      },
    ),
    // Five uses within two days of creation: a promotion candidate.
    newMemoryRecord(
      IDS.promote,
      'Deploys go out from the release branch after the smoke tests',
      now - 2 * DAY,
      {
        last_used: now - 3600,
        use_count: 6,
        ...tags(['work']),
      },
    ),
    // Score ~0.12 now, under 0.05 a month later: gc forgets it then.
    newMemoryRecord(
      IDS.later,
      'The bike lock code is the year the house was built',
      now - 20 * DAY,
      {
        last_used: now - 20 * DAY,
      },
    ),
    newMemoryRecord(IDS.img, XSS_IMG, now - DAY, { last_used: now - DAY }),
    newMemoryRecord(IDS.link, XSS_LINK, now - DAY, { last_used: now - DAY }),
  ];
  const relation: RelationRecord = {
    id: '00000000-0000-4000-8000-0000000000a1',
    from_memory_id: IDS.cat,
    to_memory_id: IDS.wifi,
    relation_type: 'related',
    strength: 1,
    created_at: now - DAY,
    metadata: {},
  };
  for (const [name, lines] of [
    ['memories.jsonl', records],
    ['relations.jsonl', [relation]],
  ] as const) {
    const file = new JsonlFile(path.join(dir, name));
    try {
      file.rewrite(lines);
    } finally {
      file.close();
    }
  }
}

// What every lineage edge carries about time (docs/time.md), and that it is no inferred input: a current edge never seen, for test fixtures.
export const CURRENT = { firstSeen: null, lastSeen: null, current: true, staleSince: null, inferred: false } as const;

// What every lineage edge carries about time (docs/time.md): a current edge never seen, for test fixtures.
export const CURRENT = { firstSeen: null, lastSeen: null, current: true, staleSince: null } as const;

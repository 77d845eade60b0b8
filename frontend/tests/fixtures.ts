// What the tests' lineage answers share: an edge the job's latest completed run confirmed, seen at no known time.

export const CURRENT = { firstSeen: null, lastSeen: null, current: true, staleSince: null } as const;

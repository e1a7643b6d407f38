import type { ContactsStore } from './contacts-store.js';

/**
 * The central contacts platform: it holds audience segments of its own that the segment list merges
 * in (seed "Segments"). They carry no filter criteria (`filter_criteria: null`), so they cannot be
 * refreshed (422); the platform decides their members, and this service does not change them.
 */
export interface CentralSegment {
  id: string;
  userId: string;
  name: string;
  description: string | null;
  /** member contact ids as the platform last synchronized them */
  memberIds: string[];
  /** when the platform last synchronized the segment (epoch ms) */
  syncedAt: number;
}

export interface CentralSegmentsSource {
  /** Every platform segment of every user, read when the stub starts or resets. */
  segments(contacts: ContactsStore, now: number): CentralSegment[];
}

/** The id of the default platform segment, fixed so that examples, tests and clients can name it. */
export const centralSegmentId = 'c3a7e1d0-5b2f-4c8e-9a6d-0f1e2d3c4b5a';

/** DECISIONS mail-5: one platform segment for the Max user, its newsletter audience at seed time. */
export const defaultCentralSegments: CentralSegmentsSource = {
  segments: (contacts, now) => [
    {
      id: centralSegmentId,
      userId: 'usr_max',
      name: 'Platform audience: newsletter',
      description: 'Audience segment synchronized from the central contacts platform',
      memberIds: contacts
        .of('usr_max')
        .filter((c) => c.tags.includes('newsletter'))
        .map((c) => c.id),
      syncedAt: now,
    },
  ],
};

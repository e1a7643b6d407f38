import type { Clock } from '../../lib/clock.js';
import type { ContactsStore } from './contacts-store.js';

/** Segments per user and their membership rows. (Being built: issue 13, segments engine.) */
export class SegmentsStore {
  constructor(
    private clock: Clock,
    private contacts: ContactsStore,
  ) {
    this.reset();
  }

  reset(): void {}
}

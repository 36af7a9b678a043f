/** A service that holds state: how it empties itself and how it loads its fixtures. */
export interface Lifecycle {
  /** Everything gone (the store is cleared separately): drop caches, blobs, timers. */
  resetAll?(): Promise<void> | void;
  /** One partner app's state gone, the app itself kept. */
  resetApp?(clientId: string): Promise<void> | void;
  /**
   * Throw (a 422 naming file and field) when this service's fixture files in `dir` could not
   * be loaded; changes nothing. Runs for every service before any state is wiped or seeded.
   */
  checkFixtures?(dir: string): Promise<void>;
  /** Load this service's fixture files from `dir` into an empty store. */
  seed?(dir: string): Promise<void>;
}

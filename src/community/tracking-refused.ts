/**
 * What everyone reading a shared entry sees when the live tracker stopped following it for good:
 * its frozen model failed the safety check (src/scoring/model-check), and frozen, it would fail the
 * same way on every retry. Public, so plain words only: why the check refused it stays in the log.
 */
export const TRACKING_REFUSED =
  "the shared model failed the safety check: it is not a model this service's exporter makes, so the live tracker does not load it and its live record is not kept; share a retrained model as a new entry";

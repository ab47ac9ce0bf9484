/**
 * What the owner reads when their stored model fails the safety check (src/scoring/model-check):
 * on POST /deploy (422), and on the deployment itself when its actor found it out (GET /deployed).
 * Plain words and what to do; why the check refused it stays in the log, out of a hostile user's hands.
 */
export const MODEL_REFUSED =
  "the stored model failed the safety check: it is not a model this service's exporter makes, so it is not loaded; retrain it and deploy it again";

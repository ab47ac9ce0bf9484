/**
 * Route option for the bulk data routes (/ohlc, /ticks, /indicators): their responses are built
 * by our own code from typed columns, and validating 5,000 rows against the schema on every
 * call would cost more than building them. The schema still documents the route in
 * /openapi.json, and the route tests check responses against it.
 */
export const plainJsonSerializer = {
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};

/** Moved with the simulated Graph API to src/transport/simulator/graph-api-payloads.ts; re-exported for the tests. */
export * from '../../src/transport/simulator/graph-api-payloads.ts';

/**
 * The simulated Graph API moved to src/transport/simulator/graph-api.ts, where the demo uses it
 * too (the demo's Cloud API account talks to it over loopback HTTP); re-exported for the tests.
 */
export * from '../../src/transport/simulator/graph-api.ts';

// Package interop drives the course's servers with real clients that the
// course did not write: the official Go SDK client, the official TypeScript
// SDK client, both MCP Inspector CLIs, and the official MCP conformance
// suite, against every stage's reference (or a learner's own stages, with
// INTEROP_TARGET=.). README.md lists what each run covers and how to run one
// by hand.
//
// This is a module of its own, so that the SDK stays out of the course
// module, whose only direct dependencies are testify, gorilla/websocket and
// rs/cors. Its non-test packages are the conformance fixtures: package
// everything, and cmd/everything, which serves them with the newest stage's
// transport.
package interop

// Package interop drives the course's reference servers with a real client
// that the course did not write: the official Go SDK (modelcontextprotocol/go-sdk).
// Each test builds a server, connects through one of the SDK's transports and
// checks every answer. This is a module of its own so that the SDK stays out
// of the course module, which depends only on testify, gorilla/websocket and
// rs/cors.
package interop

// Package interop drives the course's reference servers with real clients
// that the course did not write: the official Go SDK (modelcontextprotocol/go-sdk)
// over stdio and Streamable HTTP, and the official MCP conformance suite
// (npm @modelcontextprotocol/conformance) over Streamable HTTP. Each test
// builds a server, connects and checks every answer. This is a module of its
// own so that the SDK stays out of the course module, whose only dependency
// today is testify (gorilla/websocket and rs/cors join it with lesson 04).
package interop

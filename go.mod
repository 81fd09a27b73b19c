module mcpcourse

go 1.22

require (
	github.com/gorilla/websocket v1.5.3
	github.com/rs/cors v1.11.1
	github.com/stretchr/testify v1.12.1
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

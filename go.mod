module github.com/greenlight-ci/greenlight

go 1.26

require (
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
)

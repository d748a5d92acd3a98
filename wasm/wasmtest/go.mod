module github.com/greenlight-ci/greenlight/wasm/wasmtest

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/greenlight-ci/greenlight v0.0.0
	github.com/rogpeppe/go-internal v1.16.0
	github.com/sethvargo/go-githubactions v1.3.2
	github.com/tetratelabs/wazero v1.12.0
	github.com/yuin/goldmark v1.8.7
)

require (
	github.com/bmatcuk/doublestar/v4 v4.10.0 // indirect
	github.com/go-json-experiment/json v1.27.2 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
	github.com/robfig/cron/v3 v3.0.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/term v0.47.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)

// The tests build and compare this checkout, never a published version.
replace github.com/greenlight-ci/greenlight => ../..

// Package dashboard tests the Grafana dashboard for the drop-in's metrics
// of our parts, config/grafana/runtime-sdk-controller.json: every query
// parses with Prometheus' own PromQL parser and names only metrics our
// controllers export. It lives in the lab module so that Prometheus' server
// module stays out of the product's go.mod.
package dashboard

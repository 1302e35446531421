// Package dashboard tests the Grafana dashboard for the standalone
// controller's metrics, config/grafana/runtime-sdk-controller.json: every
// query parses with Prometheus' own PromQL parser and names only metrics the
// controller exports. It lives in the lab module so that Prometheus' server
// module stays out of the product's go.mod.
package dashboard

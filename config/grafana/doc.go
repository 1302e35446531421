// Package grafana holds the Grafana dashboard for the controller's metrics,
// runtime-sdk-controller.json, and its test: every query parses with
// Prometheus' own PromQL parser and names only metrics the controller
// exports.
package grafana

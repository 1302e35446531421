/*
Copyright 2026 The runtime-sdk-controller Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package extensioncalls

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	rtclient "github.com/runtime-sdk-controller/runtime-sdk-controller/internal/runtime/client"
)

// The request metrics of Cluster API's runtime client, with its names,
// labels and buckets, so that dashboards and alerts built on
// capi-controller-manager keep working on the drop-in. Our own
// runtime_sdk_* metrics are exported beside them.
var (
	requestsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Subsystem: "capi_runtime_sdk",
		Name:      "requests_total",
		Help:      "Runtime Extension calls by HTTP status code (<error> when no answer came), host, hook and response status (Unknown when the answer was no response).",
	}, []string{"code", "host", "group", "version", "hook", "status"})

	requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Subsystem: "capi_runtime_sdk",
		Name:      "request_duration_seconds",
		Help:      "Duration of Runtime Extension calls by host and hook.",
		Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
			4, 5, 6, 8, 10, 15, 20, 30, 45, 60},
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, []string{"host", "group", "version", "hook"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(requestsTotal, requestDuration)
}

// Observe records one call in Cluster API's request metrics; it is the
// runtime client's Options.Observe in the drop-in.
func Observe(r rtclient.CallRecord) {
	code := "<error>"
	if r.HTTPStatus != 0 {
		code = strconv.Itoa(r.HTTPStatus)
	}
	status := "Unknown"
	if r.ResponseStatus != "" {
		status = string(r.ResponseStatus)
	}
	requestsTotal.WithLabelValues(code, r.Host, r.Hook.Group, r.Hook.Version, r.Hook.Hook, status).Inc()
	requestDuration.WithLabelValues(r.Host, r.Hook.Group, r.Hook.Version, r.Hook.Hook).Observe(r.Duration.Seconds())
}

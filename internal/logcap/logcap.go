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

package logcap

import "github.com/go-logr/logr"

// MaxVerbosity is the highest V level that passes: below client-go's body
// dumps (V(8)) and header dumps (V(7)).
const MaxVerbosity = 6

// Cap returns a logger that drops every line above max verbosity.
func Cap(logger logr.Logger, max int) logr.Logger {
	sink := logger.GetSink()
	if sink == nil {
		return logger
	}
	if depth, ok := sink.(logr.CallDepthLogSink); ok {
		// One frame for our wrapper, so callers' file:line stay right.
		sink = depth.WithCallDepth(1)
	}
	return logr.New(&capped{sink: sink, max: max})
}

type capped struct {
	sink logr.LogSink
	max  int
}

var _ logr.LogSink = &capped{}

func (c *capped) Init(info logr.RuntimeInfo) { c.sink.Init(info) }

func (c *capped) Enabled(level int) bool { return level <= c.max && c.sink.Enabled(level) }

func (c *capped) Info(level int, msg string, keysAndValues ...any) {
	if level <= c.max {
		c.sink.Info(level, msg, keysAndValues...)
	}
}

func (c *capped) Error(err error, msg string, keysAndValues ...any) {
	c.sink.Error(err, msg, keysAndValues...)
}

func (c *capped) WithValues(keysAndValues ...any) logr.LogSink {
	return &capped{sink: c.sink.WithValues(keysAndValues...), max: c.max}
}

func (c *capped) WithName(name string) logr.LogSink {
	return &capped{sink: c.sink.WithName(name), max: c.max}
}

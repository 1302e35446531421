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

package devrun

import (
	"fmt"
	"io"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/managerprocess"
)

// stopLogged stops one child process and says so before and once it is
// gone, as the management cluster says it of each of its processes.
func stopLogged(out io.Writer, name string, stop func() error) {
	fmt.Fprintf(out, "stopping %s\n", name)
	if err := stop(); err != nil {
		// A child that outlived its grace period was killed: it is gone
		// all the same.
		fmt.Fprintf(out, "stop %s: %v\n", name, err)
	}
	fmt.Fprintf(out, "%s stopped\n", name)
}

// stopProcess is p.Stop for stopLogged; it returns once p has ended.
func stopProcess(p *managerprocess.Process) func() error {
	return func() error { p.Stop(); return nil }
}

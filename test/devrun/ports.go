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
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/capimanagement"
)

// checkPorts fails, naming the port, before anything starts, when a port a
// process will listen on is taken: the process would otherwise fail with
// an error buried in its log, or, for the in-memory provider, only once a
// Cluster is created. A port a flag moves is named with the flag.
func checkPorts(o Options) error {
	for _, a := range []struct{ flag, value, listen string }{
		{"--extension-address", o.ExtensionAddress, o.ExtensionAddress},
		{"--extension-admin-address", o.ExtensionAdminAddress, o.ExtensionAdminAddress},
		// Cluster API's servers listen on every interface.
		{"--test-extension-port", strconv.Itoa(o.TestExtensionPort), ":" + strconv.Itoa(o.TestExtensionPort)},
	} {
		l, err := net.Listen("tcp", a.listen)
		if err != nil {
			return fmt.Errorf("%s %s is in use (%v): stop what holds it, or choose another port with %s", a.flag, a.value, err, a.flag)
		}
		_ = l.Close()
	}
	// While another test or tool of this repository holds the in-memory
	// provider's ports, Run says so and Start waits for them, then checks
	// them again before it starts anything.
	if err := capimanagement.CheckPorts(workloadClusters); err != nil && !errors.Is(err, capimanagement.ErrLocked) {
		return err
	}
	return nil
}

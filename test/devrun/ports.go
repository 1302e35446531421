package devrun

import (
	"fmt"
	"net"
)

// checkPorts fails, naming the flag that moves it, when an address a child
// process will listen on is taken: the child would otherwise fail with an
// error buried in its log.
func checkPorts(o Options) error {
	type address struct{ flag, value string }
	addresses := []address{{"--metrics-address", o.MetricsAddress}, {"--health-address", o.HealthAddress}}
	if o.withExtension() {
		addresses = append(addresses, address{"--extension-address", o.ExtensionAddress}, address{"--extension-admin-address", o.ExtensionAdminAddress})
	}
	for _, a := range addresses {
		l, err := net.Listen("tcp", a.value)
		if err != nil {
			return fmt.Errorf("%s %s is %w (%v): stop what holds it, or choose another port with %s 127.0.0.1:PORT", a.flag, a.value, errPortInUse, err, a.flag)
		}
		_ = l.Close()
	}
	return nil
}

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

package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/nodehost"
)

// The node's networks, all inside its namespace.
const (
	podSubnet     = "10.244.0.0/24"
	podGateway    = "10.244.0.1"
	clusterCIDR   = "10.244.0.0/16"
	serviceSubnet = "10.96.0.0/24"
	// KubernetesServiceIP is the first address of serviceSubnet, which the
	// apiserver gives the kubernetes Service.
	KubernetesServiceIP = "10.96.0.1"
)

// PauseImage is the sandbox image containerd pins; an archive of it must
// be among Options.Images. Its name is as containerd normalizes it, so
// that the pin and the imported image are the same.
const PauseImage = "docker.io/library/rsc-pause:node"

// containerdConfig is containerd's configuration: everything under the
// node's folders (root, state, sockets, runc's state, CNI), overlayfs,
// runc with cgroupfs (kubelet takes its cgroup driver from it), and no
// plugin that would dial out or wait on something absent.
func (n *Node) containerdConfig() string {
	return fmt.Sprintf(`version = 3
root = %[1]q
state = %[2]q
disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = %[3]q

[plugins.'io.containerd.shim.v1.manager']
  # A shim's socket path must fit in 108 bytes with its hash: short.
  socket_dir = %[4]q

[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = %[5]q

[plugins.'io.containerd.cri.v1.runtime']
  enable_selinux = false
  # This machine's root lacks CAP_SYS_RESOURCE, so no process may lower
  # its oom_score_adj: runc would fail every sandbox (given -998) with
  # "can't get final child's PID from pipe: EOF". Clamped, it keeps ours.
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = %[6]q
        Root = %[7]q
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = [%[8]q]
    conf_dir = %[9]q
    max_conf_num = 1

[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
`, filepath.Join(n.dir, "containerd", "root"), filepath.Join(n.run, "containerd"), n.containerdSocket(),
		filepath.Join(n.run, "s"), PauseImage, n.runc, filepath.Join(n.run, "runc"),
		filepath.Join(n.opts.BinDir, "node", "cni"), filepath.Join(n.dir, "cni", "net.d"))
}

func (n *Node) containerdSocket() string { return filepath.Join(n.run, "containerd.sock") }

// cniConfig is the Pod network: one bridge with the node as gateway (which
// turns on forwarding inside the namespace only), addresses from
// host-local, and portmap for hostPorts. No masquerade: there is no uplink.
func (n *Node) cniConfig() ([]byte, error) {
	return json.MarshalIndent(map[string]any{
		"cniVersion": "1.0.0",
		"name":       "rsc-node",
		"plugins": []map[string]any{
			{
				"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": filepath.Join(n.dir, "cni", "ipam"),
					"ranges":  [][]map[string]string{{{"subnet": podSubnet, "gateway": podGateway}}},
					"routes":  []map[string]string{{"dst": "0.0.0.0/0"}},
				},
			},
			{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}, "", "  ")
}

// kubeletConfig is kubelet's configuration. failCgroupV1 is false because
// this machine mounts cgroup v1, which kubelet refuses since 1.35 unless
// told; Pods go under the cgroup root the harness made; eviction and image
// garbage collection are off in effect, because the images cannot be
// pulled again; and Pods ask the node's CoreDNS for names, never the
// host's resolver, which they could not reach.
func (n *Node) kubeletConfig() string {
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /%[1]s
containerRuntimeEndpoint: unix://%[2]s
address: %[3]s
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %[4]q}
authorization: {mode: Webhook}
podLogsDir: %[5]q
volumePluginDir: %[6]q
failSwapOn: false
resolvConf: ""
clusterDomain: cluster.local
clusterDNS: [%[7]s]
evictionHard: {memory.available: "100Mi"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
maxPods: 60
serializeImagePulls: false
rotateCertificates: false
serverTLSBootstrap: false
`, n.opts.Name, n.containerdSocket(), nodehost.NodeIP, n.cluster.CACertPath(),
		filepath.Join(n.dir, "kubelet", "pod-logs"), filepath.Join(n.dir, "kubelet", "volume-plugins"), DNSAddress)
}

// kubeProxyConfig is kube-proxy's configuration: iptables mode, said
// outright (1.37 warns when it is left to the default), and no change to
// nf_conntrack_max, which a network namespace may not write.
func (n *Node) kubeProxyConfig() string {
	return fmt.Sprintf(`apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clientConnection: {kubeconfig: %[1]q}
hostnameOverride: %[2]s
clusterCIDR: %[3]s
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
`, n.kubeconfig("kube-proxy"), n.opts.Name, clusterCIDR)
}

func writeFile(path string, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.TrimLeft(data, "\n")), 0o644)
}

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
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/localcluster"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/polltest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/internal/test/proctest"
	"github.com/runtime-sdk-controller/runtime-sdk-controller/test/nodehost"
)

// Options configure the node.
type Options struct {
	// Name is the node's, and its cgroup root's, as nodehost made them.
	Name string
	// Dir holds everything the node keeps: the control plane, containerd's
	// images and snapshots, kubelet's Pods and every log (in logs/).
	Dir string
	// BinDir holds etcd and kube-apiserver (make tools), and node/ the
	// node's binaries (make node-binaries).
	BinDir string
	// Images are OCI archives imported into containerd before kubelet
	// starts; one must be PauseImage.
	Images []string
	// Timeout bounds each component's start.
	Timeout time.Duration
	// Progress gets a line per component started, with its time.
	Progress io.Writer
}

// Node is a running one-node cluster.
type Node struct {
	opts    Options
	dir     string // Options.Dir, absolute
	run     string // short folder for sockets (a unix socket path is at most 108 bytes)
	runc    string
	cluster *localcluster.Cluster
	// started are the node's processes besides the control plane, in the
	// order they started.
	started []*localcluster.Process
	// Timings are how long each component took to start, in order.
	Timings []Timing
}

// Timing is one component's start.
type Timing struct {
	Component string
	Took      time.Duration
}

// apiServerPort is kube-apiserver's port; the namespace is the node's own,
// so it is always free.
const apiServerPort = 6443

// stopGrace is how long each component gets to stop after SIGTERM.
const stopGrace = 20 * time.Second

// Start starts every component in order and waits until each is ready and
// the Node is Ready. Called from inside the namespace (nodehost.Inside).
// On failure what started is stopped, and the error names the component
// and the last line its log reported.
func Start(ctx context.Context, o Options) (*Node, error) {
	if _, inside := nodehost.Inside(); !inside {
		return nil, errors.New("node.Start runs inside the node's namespaces: start it through nodehost.Run")
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	runc, err := exec.LookPath("runc")
	if err != nil {
		return nil, err
	}
	n := &Node{opts: o, dir: dir, run: nodehost.RunDir(o.Name), runc: runc}
	if err := n.start(ctx); err != nil {
		return nil, errors.Join(err, n.Stop())
	}
	return n, nil
}

func (n *Node) start(ctx context.Context) error {
	for _, d := range []string{n.run, n.logs(), filepath.Join(n.dir, "cni", "net.d"), filepath.Join(n.dir, "cni", "cache")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// libcni keeps its result cache in /var/lib/cni with no setting to
	// move it: in the node's private mount namespace, that is the node's
	// folder, and it vanishes with the node.
	if err := os.MkdirAll("/var/lib/cni", 0o755); err != nil {
		return err
	}
	if err := syscall.Mount(filepath.Join(n.dir, "cni", "cache"), "/var/lib/cni", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind the CNI cache into the node's mount namespace: %w", err)
	}
	// The node's programs resolve names with the cluster's DNS only: the
	// host's resolver is an address outside the namespace, which nothing
	// here may send to.
	resolvConf := filepath.Join(n.dir, "resolv.conf")
	if err := writeFile(resolvConf, "nameserver "+DNSAddress+"\nsearch cluster.local\n"); err != nil {
		return err
	}
	if err := syscall.Mount(resolvConf, "/etc/resolv.conf", "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind the node's resolv.conf into its mount namespace: %w", err)
	}
	// log names the log whose last lines a failed step shows.
	steps := []struct {
		component, log string
		start          func(context.Context) error
	}{
		{"etcd and kube-apiserver", filepath.Join(n.controlPlaneDir(), "logs", "kube-apiserver.log"), n.startControlPlane},
		{"kube-controller-manager", "kube-controller-manager", n.startControllerManager},
		{"kube-scheduler", "kube-scheduler", n.startScheduler},
		{"containerd", "containerd", n.startContainerd},
		{"images", "containerd", n.importImages},
		{"kubelet", "kubelet", n.startKubelet},
		{"kube-proxy", "kube-proxy", n.startKubeProxy},
		{"CoreDNS", "coredns", n.startCoreDNS},
		{"Node Ready", "kubelet", n.waitNodeReady},
	}
	up := time.Now()
	for _, step := range steps {
		began := time.Now()
		if err := step.start(ctx); err != nil {
			log := step.log
			if !filepath.IsAbs(log) {
				log = filepath.Join(n.logs(), log+".log")
			}
			return fmt.Errorf("%s: %w\nlast lines of %s:\n%s", step.component, err, log, logTail(log, 10))
		}
		took := time.Since(began)
		n.Timings = append(n.Timings, Timing{step.component, took})
		fmt.Fprintf(n.opts.Progress, "node %s: %s in %.1fs\n", n.opts.Name, step.component, took.Seconds())
	}
	fmt.Fprintf(n.opts.Progress, "node %s: up in %.1fs\n", n.opts.Name, time.Since(up).Seconds())
	return nil
}

// logTail is the last lines of a log, for an error.
func logTail(path string, lines int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return proctest.Tail(string(data), lines)
}

// Config is a cluster-admin client configuration.
func (n *Node) Config() *rest.Config { return n.cluster.Config() }

// KubeconfigPath is a cluster-admin kubeconfig, for clusterctl.
func (n *Node) KubeconfigPath() string { return n.cluster.KubeconfigPath() }

func (n *Node) logs() string { return filepath.Join(n.dir, "logs") }

// Stop stops the components in reverse order: CoreDNS, kube-proxy,
// kubelet, every container (killed through the node's cgroup root, since
// kubelet no longer runs to stop them), containerd, the controllers, then
// the control plane. Shims and anything else left are nodehost.Clean's.
func (n *Node) Stop() error {
	var errs []error
	for i := len(n.started) - 1; i >= 0; i-- {
		p := n.started[i]
		if p.Name == "containerd" {
			errs = append(errs, nodehost.KillPods(n.opts.Name))
		}
		errs = append(errs, p.Stop(stopGrace))
	}
	n.started = nil
	if n.cluster != nil {
		errs = append(errs, n.cluster.Stop())
	}
	return errors.Join(errs...)
}

// process starts one component with its log in logs/ and its pid file in
// the run folder.
func (n *Node) process(name, binary string, env []string, args ...string) (*localcluster.Process, error) {
	p := &localcluster.Process{
		Name:    name,
		Binary:  binary,
		Args:    args,
		LogPath: filepath.Join(n.logs(), name+".log"),
		PIDPath: filepath.Join(n.run, name+".pid"),
		Env:     env,
	}
	if err := p.Start(); err != nil {
		return nil, err
	}
	n.started = append(n.started, p)
	return p, nil
}

// processNamed is the started component of that name.
func (n *Node) processNamed(name string) *localcluster.Process {
	for _, p := range n.started {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (n *Node) nodeBin(name string) string { return filepath.Join(n.opts.BinDir, "node", name) }

func (n *Node) kubeconfig(user string) string {
	return filepath.Join(n.dir, "kubeconfigs", user+".kubeconfig")
}

func (n *Node) startControlPlane(ctx context.Context) error {
	cpDir := n.controlPlaneDir()
	c, err := localcluster.Start(ctx, localcluster.Options{
		Dir:                cpDir,
		BinDir:             n.opts.BinDir,
		APIServerPort:      apiServerPort,
		StartTimeout:       n.opts.Timeout,
		AuthorizationModes: []string{"Node", "RBAC"},
		ServingIPs:         []net.IP{net.ParseIP(KubernetesServiceIP), net.ParseIP(nodehost.NodeIP)},
		APIServerArgs: []string{
			// Pods reach it through the kubernetes Service, whose
			// endpoint is the node's address.
			"--bind-address=0.0.0.0",
			"--advertise-address=" + nodehost.NodeIP,
			"--endpoint-reconciler-type=lease",
			"--enable-admission-plugins=NodeRestriction",
			// The node's name is in no DNS: call kubelet at its address.
			"--kubelet-preferred-address-types=InternalIP",
			// It calls kubelets (logs, exec) as the admin: kubelet's
			// webhook authorizer asks the apiserver, which allows
			// system:masters.
			"--kubelet-client-certificate=" + localcluster.PKIFile(cpDir, "admin.crt"),
			"--kubelet-client-key=" + localcluster.PKIFile(cpDir, "admin.key"),
		},
	})
	if err != nil {
		return err
	}
	n.cluster = c
	for _, id := range []struct {
		component, user string
		groups          []string
	}{
		{"kubelet", "system:node:" + n.opts.Name, []string{"system:nodes"}},
		{"kube-controller-manager", "system:kube-controller-manager", nil},
		{"kube-scheduler", "system:kube-scheduler", nil},
		{"kube-proxy", "system:kube-proxy", nil},
		{"coredns", coreDNSUser, nil},
	} {
		if err := c.WriteKubeconfigAs(n.kubeconfig(id.component), id.user, id.groups...); err != nil {
			return err
		}
	}
	return nil
}

func (n *Node) controlPlaneDir() string { return filepath.Join(n.dir, "control-plane") }

// servingCert issues a serving certificate for 127.0.0.1, so that the
// controllers' health endpoints are checked with the cluster's CA.
func (n *Node) servingCert(name string) (cert, key string, err error) {
	base := filepath.Join(n.dir, "pki", name)
	if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
		return "", "", err
	}
	err = n.cluster.IssueCertificate(&x509.Certificate{
		Subject:     pkix.Name{CommonName: name},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, base+".crt", base+".key")
	return base + ".crt", base + ".key", err
}

func (n *Node) startControllerManager(ctx context.Context) error {
	cert, key, err := n.servingCert("kube-controller-manager")
	if err != nil {
		return err
	}
	kubeconfig := n.kubeconfig("kube-controller-manager")
	p, err := n.process("kube-controller-manager", n.nodeBin("kube-controller-manager"), nil,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=10257",
		"--tls-cert-file="+cert, "--tls-private-key-file="+key,
		// Each controller acts as its own ServiceAccount: the manager's
		// own identity holds only the bootstrap role that allows that.
		"--use-service-account-credentials=true",
		"--service-account-private-key-file="+localcluster.PKIFile(n.controlPlaneDir(), "sa.key"),
		"--root-ca-file="+n.cluster.CACertPath(),
		"--cluster-signing-cert-file="+n.cluster.CACertPath(),
		"--cluster-signing-key-file="+localcluster.PKIFile(n.controlPlaneDir(), "ca.key"),
		"--service-cluster-ip-range="+serviceSubnet,
		"--cluster-cidr="+clusterCIDR,
		"--allocate-node-cidrs=false",
		"--controllers=*",
	)
	if err != nil {
		return err
	}
	return n.waitHealthy(ctx, p, "https://127.0.0.1:10257/healthz")
}

func (n *Node) startScheduler(ctx context.Context) error {
	cert, key, err := n.servingCert("kube-scheduler")
	if err != nil {
		return err
	}
	kubeconfig := n.kubeconfig("kube-scheduler")
	p, err := n.process("kube-scheduler", n.nodeBin("kube-scheduler"), nil,
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=10259",
		"--tls-cert-file="+cert, "--tls-private-key-file="+key,
	)
	if err != nil {
		return err
	}
	return n.waitHealthy(ctx, p, "https://127.0.0.1:10259/healthz")
}

// waitHealthy waits for a health endpoint, verified with the cluster's CA
// when it is HTTPS.
func (n *Node) waitHealthy(ctx context.Context, p *localcluster.Process, url string) error {
	client := http.DefaultClient
	if strings.HasPrefix(url, "https:") {
		cfg := &rest.Config{TLSClientConfig: rest.TLSClientConfig{CAFile: n.cluster.CACertPath()}}
		var err error
		if client, err = rest.HTTPClientFor(cfg); err != nil {
			return err
		}
	}
	return p.WaitReady(ctx, n.opts.Timeout, client, url)
}

// pathEnv is what containerd, its shims and the CNI plugins find commands
// in: Debian's runc and iptables, and the shim beside containerd.
func (n *Node) pathEnv() []string {
	return []string{"PATH=" + filepath.Join(n.opts.BinDir, "node") + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
}

func (n *Node) startContainerd(ctx context.Context) error {
	conflist, err := n.cniConfig()
	if err != nil {
		return err
	}
	// The network's configuration is there before containerd starts, so
	// that it reports the network ready at once.
	if err := writeFile(filepath.Join(n.dir, "cni", "net.d", "10-rsc-node.conflist"), string(conflist)); err != nil {
		return err
	}
	configPath := filepath.Join(n.dir, "containerd", "config.toml")
	if err := writeFile(configPath, n.containerdConfig()); err != nil {
		return err
	}
	p, err := n.process("containerd", n.nodeBin("containerd"), n.pathEnv(), "--config="+configPath, "--log-level=info")
	if err != nil {
		return err
	}
	return n.waitFor(ctx, p, "containerd answers on "+n.containerdSocket(), func() (bool, string) {
		out, err := n.ctr("version")
		return err == nil, out
	})
}

// ctr runs containerd's client against the node's containerd, in the
// namespace kubelet's images live in.
func (n *Node) ctr(args ...string) (string, error) {
	cmd := exec.Command(n.nodeBin("ctr"), append([]string{"--address", n.containerdSocket(), "--namespace", "k8s.io"}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// Platform is the node's, the one image of a multi-arch index containerd
// imports and unpacks (ctr fetches only the host's platform by default,
// and is told so), and the one kubelet's containers then run.
const Platform = "linux/amd64"

func (n *Node) importImages(context.Context) error {
	for _, archive := range n.opts.Images {
		if out, err := n.ctr("images", "import", "--platform", Platform, archive); err != nil {
			return fmt.Errorf("import %s: %v: %s", archive, err, out)
		}
	}
	out, err := n.ctr("images", "ls", "-q")
	if err != nil {
		return fmt.Errorf("list images: %v: %s", err, out)
	}
	if !strings.Contains("\n"+out+"\n", "\n"+PauseImage+"\n") {
		return fmt.Errorf("the sandbox image %s is not among the images imported (%s): pass its archive", PauseImage, strings.ReplaceAll(out, "\n", ", "))
	}
	return nil
}

// ImageRecord is containerd's record of an image name: the media type and
// digest of what the name points at (for a multi-arch image, the index),
// and every platform that lists, as os/arch[/variant].
type ImageRecord struct {
	MediaType, Digest string
	Platforms         []string
}

// Image reads containerd's record of the image named ref, in kubelet's
// namespace, as `ctr images ls` prints it: REF TYPE DIGEST SIZE (a number
// and a unit) PLATFORMS LABELS, the last two without spaces.
func (n *Node) Image(ref string) (ImageRecord, error) {
	out, err := n.ctr("images", "ls", "name=="+ref)
	if err != nil {
		return ImageRecord{}, fmt.Errorf("list image %s: %v: %s", ref, err, out)
	}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 7 || fields[0] != ref {
			continue
		}
		return ImageRecord{
			MediaType: fields[1], Digest: fields[2],
			Platforms: strings.Split(fields[len(fields)-2], ","),
		}, nil
	}
	return ImageRecord{}, fmt.Errorf("containerd holds no image %s:\n%s", ref, out)
}

func (n *Node) startKubelet(ctx context.Context) error {
	configPath := filepath.Join(n.dir, "kubelet", "config.yaml")
	if err := writeFile(configPath, n.kubeletConfig()); err != nil {
		return err
	}
	p, err := n.process("kubelet", n.nodeBin("kubelet"), n.pathEnv(),
		"--config="+configPath,
		"--kubeconfig="+n.kubeconfig("kubelet"),
		"--hostname-override="+n.opts.Name,
		"--node-ip="+nodehost.NodeIP,
		"--root-dir="+filepath.Join(n.dir, "kubelet", "root"),
		"--cert-dir="+filepath.Join(n.dir, "kubelet", "pki"),
		"--v=1",
	)
	if err != nil {
		return err
	}
	return n.waitHealthy(ctx, p, "http://127.0.0.1:10248/healthz")
}

func (n *Node) startKubeProxy(ctx context.Context) error {
	configPath := filepath.Join(n.dir, "kube-proxy", "config.yaml")
	if err := writeFile(configPath, n.kubeProxyConfig()); err != nil {
		return err
	}
	p, err := n.process("kube-proxy", n.nodeBin("kube-proxy"), n.pathEnv(), "--config="+configPath)
	if err != nil {
		return err
	}
	return n.waitHealthy(ctx, p, "http://127.0.0.1:10256/healthz")
}

// coreDNSUser is CoreDNS's identity; coreDNSRBAC lets it read what it
// answers from.
const coreDNSUser = "system:coredns"

// DNSAddress is where CoreDNS answers: the node's address, which every
// Pod reaches through its bridge's gateway. kubelet gives it to Pods as
// their nameserver.
const DNSAddress = nodehost.NodeIP

func (n *Node) startCoreDNS(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(n.cluster.Config())
	if err != nil {
		return err
	}
	if err := coreDNSRBAC(ctx, cs); err != nil {
		return err
	}
	corefile := filepath.Join(n.dir, "coredns", "Corefile")
	if err := writeFile(corefile, n.corefile()); err != nil {
		return err
	}
	p, err := n.process("coredns", n.nodeBin("coredns"), nil, "-conf", corefile)
	if err != nil {
		return err
	}
	return n.waitHealthy(ctx, p, "http://127.0.0.1:"+coreDNSReadyPort+"/ready")
}

// coreDNSReadyPort is CoreDNS's readiness endpoint, on loopback.
const coreDNSReadyPort = "10254"

// corefile answers the cluster's names from the apiserver and nothing
// else: there is no upstream to forward to.
func (n *Node) corefile() string {
	return fmt.Sprintf(`.:53 {
    bind %[1]s
    errors
    ready 127.0.0.1:%[2]s
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %[3]s
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
}
`, DNSAddress, coreDNSReadyPort, n.kubeconfig("coredns"))
}

// coreDNSRBAC grants CoreDNS what its kubernetes plugin watches.
func coreDNSRBAC(ctx context.Context, cs kubernetes.Interface) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: coreDNSUser},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: coreDNSUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: coreDNSUser},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: coreDNSUser}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return err
	}
	_, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{})
	return err
}

func (n *Node) waitNodeReady(ctx context.Context) error {
	cs, err := kubernetes.NewForConfig(n.cluster.Config())
	if err != nil {
		return err
	}
	kubelet := n.processNamed("kubelet")
	return n.waitFor(ctx, kubelet, "Node "+n.opts.Name+" Ready", func() (bool, string) {
		node, err := cs.CoreV1().Nodes().Get(ctx, n.opts.Name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue, c.Reason + ": " + c.Message
			}
		}
		return false, "no Ready condition yet"
	})
}

// waitFor polls check until it holds, the process ends, or the timeout
// passes; the error then carries check's last word and the last line the
// process's log reported.
func (n *Node) waitFor(ctx context.Context, p *localcluster.Process, what string, check func() (bool, string)) error {
	err := polltest.Within(n.opts.Timeout, what, func() (bool, string) {
		if ended, exitErr := p.Exited(); ended {
			return true, fmt.Sprintf("%s exited (%v)", p.Name, exitErr)
		}
		if ctx.Err() != nil {
			return true, ctx.Err().Error()
		}
		return check()
	})
	if ended, exitErr := p.Exited(); ended {
		return fmt.Errorf("%s exited during start-up (%v): %s (full log: %s)", p.Name, exitErr, p.LastError(), p.LogPath)
	}
	if err != nil {
		return fmt.Errorf("%w; %s last logged: %s (full log: %s)", err, p.Name, p.LastError(), p.LogPath)
	}
	return ctx.Err()
}

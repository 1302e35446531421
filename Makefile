# Everything a newcomer needs goes through this file: `make run` and `make test`.
# Tools are built from Go modules under hack/tools into bin/, only when missing
# or older than the go.sum that pins them.

SHELL := /usr/bin/env bash -o errexit -o pipefail -o nounset
ROOT := $(abspath .)
BIN := $(ROOT)/bin
GO ?= go
LOCAL_DIR ?= $(ROOT)/.local
CRD_DIR := config/crd/bases
# Packages of the cluster-api api module whose CRDs we serve.
CRD_PACKAGES := sigs.k8s.io/cluster-api/api/core/v1beta2 sigs.k8s.io/cluster-api/api/runtime/v1beta2
# The CRDs we keep from those packages; the core package defines many more kinds.
CRD_FILES := cluster.x-k8s.io_clusterclasses.yaml runtime.cluster.x-k8s.io_extensionconfigs.yaml
TEST_FLAGS ?=
# The Cluster API release the drop-in is built on: hack/cluster-api-version
# is the one place that names it (make bump-cluster-api moves it).
CAPI_VERSION := $(shell cat $(ROOT)/hack/cluster-api-version)

KUBE_APISERVER := $(BIN)/kube-apiserver
KUBECTL := $(BIN)/kubectl
ETCD := $(BIN)/etcd
CONTROLLER_GEN := $(BIN)/controller-gen
GOLANGCI_LINT := $(BIN)/golangci-lint
MANAGER := $(BIN)/runtime-sdk-controller
# The load tool and the drills: a binary of their own, never linked into
# the controller.
BENCH := $(BIN)/rsc-bench
# The development launcher `make run` starts, and the sample extension it runs.
DEV := $(BIN)/rsc-dev
SAMPLE_EXTENSION := $(BIN)/sample-extension
# Cluster API v1.14.2's own core manager, and the CRDs it serves, copied from
# its module: the reference the differential tests run beside ours.
CAPI_BASELINE := $(BIN)/capi-baseline
CAPI_BASELINE_CRDS := $(BIN)/capi-baseline-crds

# Stamp kube-apiserver with the release it is built from; a plain `go build`
# reports v0.0.0-master to clients.
KUBE_VERSION := v1.37.2
KUBE_LDFLAGS := -X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37 \
	-X k8s.io/component-base/version.gitTreeState=clean

.PHONY: all
all: build

##@ Tools

.PHONY: tools
tools: $(KUBE_APISERVER) $(KUBECTL) $(ETCD) $(CONTROLLER_GEN) ## Build kube-apiserver, kubectl, etcd and controller-gen into bin/ when missing or stale.

$(KUBE_APISERVER): hack/tools/go.sum
	@echo "building $@ (a cold build takes about 4 minutes)"
	cd hack/tools && $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kube-apiserver

# kubectl shares most of its packages with kube-apiserver: after it, the
# build takes a few minutes more.
$(KUBECTL): hack/tools/go.sum
	cd hack/tools && $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kubectl

$(CONTROLLER_GEN): hack/tools/go.sum
	cd hack/tools && $(GO) build -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

$(ETCD): hack/tools/etcd/go.sum hack/tools/etcd/main.go
	cd hack/tools/etcd && $(GO) build -o $@ .

# golangci-lint has a module of its own: its many dependencies stay out of
# hack/tools. A cold build, downloads included, takes about 3 minutes.
$(GOLANGCI_LINT): hack/tools/golangci-lint/go.sum
	cd hack/tools/golangci-lint && $(GO) build -o $@ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

# cyclonedx-gomod writes the release's SBOMs; its module keeps its
# dependencies out of the others' graphs. A cold build takes under a minute.
CYCLONEDX_GOMOD := $(BIN)/cyclonedx-gomod

$(CYCLONEDX_GOMOD): hack/tools/cyclonedx/go.sum
	cd hack/tools/cyclonedx && CGO_ENABLED=0 $(GO) build -trimpath -o $@ github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod

##@ Real node

# What a one-node Kubernetes cluster on this machine runs beside etcd and
# kube-apiserver, built from released modules into bin/node (the harness is
# test/node and test/nodehost; make test builds none of this). Kubernetes' node binaries come from hack/tools, the module
# kube-apiserver is built from, at the same version; containerd v2.4.2 (its
# runc shim and ctr) from hack/tools/containerd, without cgo and without the
# btrfs, devmapper and zfs snapshotters; the CNI plugins from hack/tools/cni;
# CoreDNS, the cluster's DNS, from hack/tools/coredns.
# runc is Debian's package (apt-get install runc).
NODE_BIN := $(BIN)/node
NODE_KUBE := kubelet kube-proxy kube-controller-manager kube-scheduler
NODE_CONTAINERD := containerd containerd-shim-runc-v2 ctr
NODE_CNI := main/bridge ipam/host-local main/loopback meta/portmap
CONTAINERD_TAGS := no_btrfs no_devmapper no_zfs urfave_cli_no_docs

.PHONY: node-binaries
node-binaries: ## Build the real node's kubelet, kube-proxy, containerd, CNI plugins and CoreDNS into bin/node.
	@mkdir -p $(NODE_BIN)/cni
	cd hack/tools && for cmd in $(NODE_KUBE); do $(GO) build -ldflags "$(KUBE_LDFLAGS)" -o $(NODE_BIN)/$$cmd k8s.io/kubernetes/cmd/$$cmd || exit 1; done
	cd hack/tools/containerd && CGO_ENABLED=0 $(GO) build -tags "$(CONTAINERD_TAGS)" -o $(NODE_BIN)/ $(addprefix github.com/containerd/containerd/v2/cmd/,$(NODE_CONTAINERD))
	cd hack/tools/cni && CGO_ENABLED=0 $(GO) build -o $(NODE_BIN)/cni/ $(addprefix github.com/containernetworking/plugins/plugins/,$(NODE_CNI))
	cd hack/tools/coredns && CGO_ENABLED=0 $(GO) build -o $(NODE_BIN)/coredns github.com/coredns/coredns

# Debian's packages the node runs: runc runs its containers, iptables is
# kube-proxy's and the portmap plugin's.
NODE_PACKAGES := runc iptables

.PHONY: node-packages
node-packages: ## Install Debian's runc and iptables when missing (as root; the real node needs them).
	@missing=""; for p in $(NODE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then echo "installing$$missing"; apt-get install -y --no-install-recommends $$missing || { apt-get update && apt-get install -y --no-install-recommends $$missing; }; fi

NODE_IMAGES := $(NODE_BIN)/images

# The node's images of Cluster API v1.14.2's managers, each built static
# from the unmodified released module and named as its release names it,
# under rsc.lab/ (no registry serves them: they are imported): image
# name, the module folder it is built in, and the package.
NODE_CAPI_IMAGES := \
	cluster-api-controller:hack/capi-baseline:sigs.k8s.io/cluster-api/core \
	kubeadm-bootstrap-controller:hack/capi-providers:sigs.k8s.io/cluster-api/bootstrap/kubeadm \
	kubeadm-control-plane-controller:hack/capi-providers:sigs.k8s.io/cluster-api/controlplane/kubeadm \
	capd-manager:hack/capi-providers:sigs.k8s.io/cluster-api/test/infrastructure/docker \
	test-extension:hack/capi-providers:sigs.k8s.io/cluster-api/test/extension
# The Cluster API Operator, built static from its released module
# (hack/capi-operator pins it) as rsc.lab/cluster-api-operator:VERSION,
# and its config/default rendered by kustomize as its release renders
# operator-components.yaml.
CAPI_OPERATOR_VERSION := v0.29.0
CAPI_OPERATOR_DATA := $(BIN)/capi-operator-data

.PHONY: node-images
node-images: ## Write the real node's images (sandbox, extensions, drop-in, Cluster API's) to bin/node/images.
	@mkdir -p $(NODE_IMAGES) $(BIN)/linux
	cd test && CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/linux/ ./cmd/rsc-pause ./cmd/sample-extension
	cd test && $(GO) build -o $(RSC_IMAGE) ./cmd/rsc-image
	$(BIN)/rsc-image --binary $(BIN)/linux/rsc-pause --path-in-image /pause --title rsc-pause --tag rsc-pause:node --out $(NODE_IMAGES)/rsc-pause.tar
	$(BIN)/rsc-image --binary $(BIN)/linux/sample-extension --path-in-image /sample-extension --title sample-extension --tag sample-extension:node --out $(NODE_IMAGES)/sample-extension.tar
	$(call cross-build,cmd/core-manager,.,core-manager)
	hack/release.sh image "$(RSC_IMAGE)" "$(RELEASE_PLATFORMS)" "$(RELEASE_BIN)" "$(RELEASE_VERSION)" "$(RELEASE_REVISION)" rsc.lab/core-manager:dev $(NODE_IMAGES)/core-manager.tar
	cd hack/capi-operator && CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/linux/cluster-api-operator sigs.k8s.io/cluster-api-operator/cmd
	$(BIN)/rsc-image --binary $(BIN)/linux/cluster-api-operator --path-in-image /manager --title cluster-api-operator --tag rsc.lab/cluster-api-operator:$(CAPI_OPERATOR_VERSION) --out $(NODE_IMAGES)/cluster-api-operator.tar
	@for spec in $(NODE_CAPI_IMAGES); do \
		name=$${spec%%:*}; rest=$${spec#*:}; dir=$${rest%%:*}; pkg=$${rest#*:}; \
		echo "building $$name from $$pkg"; \
		(cd $$dir && CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/linux/$$name $$pkg) || exit 1; \
		$(BIN)/rsc-image --binary $(BIN)/linux/$$name --path-in-image /manager --title $$name --tag rsc.lab/$$name:$(CAPI_VERSION) --out $(NODE_IMAGES)/$$name.tar || exit 1; \
	done

$(CAPI_OPERATOR_DATA): hack/capi-operator/go.sum $(KUBECTL)
	@cd hack/capi-operator && $(GO) mod download sigs.k8s.io/cluster-api-operator
	@dir=$$(cd hack/capi-operator && $(GO) list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api-operator); \
	[ -d "$$dir/config/default" ] || { echo "no config/default in the operator's module ($$dir)" >&2; exit 1; }; \
	rm -rf "$@.tmp" && mkdir -p "$@.tmp" && $(KUBECTL) kustomize "$$dir/config/default" >"$@.tmp/components.yaml" && \
	rm -rf "$@" && mv "$@.tmp" "$@"

NODE_DIR ?= $(CURDIR)/.local/node

.PHONY: node-test
node-test: node-packages tools capi-providers clusterctl-repository $(CAPI_OPERATOR_DATA) node-binaries node-images ## Run the tests on a one-node Kubernetes cluster of its own, then check nothing is left (as root).
	cd test && RSC_BIN_DIR=$(BIN) RSC_NODE_TEST=1 RSC_NODE_DIR=$(NODE_DIR) RSC_NODE_IMAGES=$(NODE_IMAGES) $(GO) test -count=1 -timeout 90m -v ./node/

##@ Release

# make release writes the drop-in's release into out/ as Cluster API ships
# its own (hack/release.sh says what each file is): the image as one
# multi-arch OCI image index, clusterctl's release folder of the core
# provider, the read-only tools' binaries, an SBOM of every binary shipped
# and checksums.txt. make node-images writes the node's drop-in with the
# same script, from the same binaries.
RELEASE_DIR ?= $(ROOT)/out
# The platforms Cluster API publishes its managers for; test/release holds
# this list equal to test/ociimage.Platforms, the ones the image writer
# accepts.
RELEASE_PLATFORMS := linux/amd64 linux/arm64 linux/arm/v7 linux/ppc64le linux/s390x
# The release's version says which Cluster API it is built on and from
# which commit (v1.14.2-rsc.<commit>); set it for a named release, such as
# RELEASE_VERSION=v1.14.2-rsc.1. The image is named after it.
# A tree with uncommitted changes is said to be one (-dirty), so that no
# release claims a commit it was not built from. Read once per make run.
RELEASE_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo dev)$(shell git diff --quiet HEAD 2>/dev/null || echo -dirty)
RELEASE_VERSION ?= $(CAPI_VERSION)-rsc.$(RELEASE_COMMIT)
RELEASE_REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)$(findstring -dirty,$(RELEASE_COMMIT))
RELEASE_IMAGE ?= registry.example.com/capi/core-manager:$(RELEASE_VERSION)
# Where the cross-built binaries go: $(RELEASE_BIN)/OS-ARCH[-VARIANT]/NAME.
RELEASE_BIN := $(BIN)/release
RSC_IMAGE := $(BIN)/rsc-image

# cross-build MODULE_DIR PACKAGE NAME builds PACKAGE in the module at
# MODULE_DIR for each of RELEASE_PLATFORMS into
# $(RELEASE_BIN)/OS-ARCH[-VARIANT]/NAME, static and with -trimpath as
# Cluster API builds its release, arm/v7 as GOARM=7. Go's build cache makes
# it incremental.
define cross-build
	@for p in $(RELEASE_PLATFORMS); do \
		IFS=/ read -r os arch variant <<<"$$p"; \
		echo "building $(3) for $$p"; \
		(cd $(1) && env CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $${variant:+GOARM=$${variant#v}} \
			$(GO) build -trimpath -o $(RELEASE_BIN)/$${p//\//-}/$(3) $(2)) || exit 1; \
	done
endef

.PHONY: release-binaries
release-binaries: ## Cross-build the drop-in and the read-only tools for RELEASE_PLATFORMS into bin/release/.
	$(call cross-build,cmd/core-manager,.,core-manager)
	$(call cross-build,.,./cmd/runtime-sdk-controller,runtime-sdk-controller)

.PHONY: release
release: release-binaries $(CYCLONEDX_GOMOD) $(CAPI_PROVIDERS_DATA) ## Write the drop-in's release (image index, clusterctl folder, SBOMs, checksums) into out/.
	cd test && $(GO) build -o $(RSC_IMAGE) ./cmd/rsc-image
	hack/release.sh all "$(RSC_IMAGE)" "$(CYCLONEDX_GOMOD)" "$(CAPI_PROVIDERS_DATA)" "$(CAPI_VERSION)" "$(RELEASE_PLATFORMS)" \
		"$(RELEASE_BIN)" "$(RELEASE_VERSION)" "$(RELEASE_REVISION)" "$(RELEASE_IMAGE)" "$(RELEASE_DIR)"

##@ Cluster API baseline

.PHONY: bump-cluster-api
bump-cluster-api: $(CONTROLLER_GEN) ## Move to another Cluster API release: CAPI_VERSION_NEW=vX.Y.Z, then make test.
	@[ -n "$(CAPI_VERSION_NEW)" ] || { echo "set CAPI_VERSION_NEW, e.g. make bump-cluster-api CAPI_VERSION_NEW=vX.Y.Z" >&2; exit 2; }
	GO="$(GO)" hack/bump-cluster-api.sh "$(CAPI_VERSION_NEW)"

.PHONY: capi-baseline
capi-baseline: $(CAPI_BASELINE) $(CAPI_BASELINE_CRDS) ## Build Cluster API v1.14.2's core manager and its CRDs into bin/ when missing or stale.

$(CAPI_BASELINE): hack/capi-baseline/go.sum
	@echo "building $@ (a cold build takes about 3 minutes)"
	cd hack/capi-baseline && $(GO) build -o $@ sigs.k8s.io/cluster-api/core

# The CRDs come from the module itself, so they always match the binary.
$(CAPI_BASELINE_CRDS): hack/capi-baseline/go.sum
	@dir=$$(cd hack/capi-baseline && $(GO) list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api); \
	rm -rf "$@.tmp" && mkdir -p "$@.tmp" && cp "$$dir"/core/config/crd/bases/*.yaml "$@.tmp"/ && \
	chmod u+w "$@.tmp"/*.yaml && rm -rf "$@" && mv "$@.tmp" "$@"

##@ Upstream

# The patch series to Cluster API in upstream/patches, applied to Cluster
# API v1.14.2's released source from the Go module cache in a scratch
# folder (never copied into this tree) by upstream/run.sh. golangci-lint is
# built at the version Cluster API lints with, which the script checks.
GOLANGCI_LINT_CAPI := $(BIN)/golangci-lint-capi
CAPI_PATCHED := $(BIN)/capi-patched
UPSTREAM_DIR := .local/upstream

$(GOLANGCI_LINT_CAPI): hack/tools/golangci-lint-capi/go.sum
	cd hack/tools/golangci-lint-capi && $(GO) build -o $@ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

.PHONY: upstream-test
upstream-test: $(KUBE_APISERVER) $(ETCD) $(GOLANGCI_LINT_CAPI) ## Check upstream/patches with Cluster API v1.14.2's own tests, before and after, and its linter.
	GO="$(GO)" upstream/run.sh test $(UPSTREAM_DIR) "$(BIN)" "$(GOLANGCI_LINT_CAPI)"

$(CAPI_PATCHED): $(wildcard upstream/patches/*.patch) upstream/run.sh hack/cluster-api-version
	GO="$(GO)" upstream/run.sh build $(UPSTREAM_DIR) $@

.PHONY: capi-patched
capi-patched: $(CAPI_PATCHED) ## Build Cluster API v1.14.2's core manager with upstream/patches into bin/capi-patched.

##@ Cluster API providers

# Cluster API v1.14.2's providers, test Runtime Extension and clusterctl,
# built unmodified from hack/capi-providers (its own module, pinned at the
# baseline's versions), and what running them on the local control plane
# needs: each provider's CRDs and webhooks rendered from its module's config/
# with kubectl kustomize, and the e2e templates and variables of Cluster
# API's test module.
CAPI_PROVIDERS_SUM := hack/capi-providers/go.sum
CAPI_BOOTSTRAP := $(BIN)/capi-kubeadm-bootstrap
CAPI_CONTROL_PLANE := $(BIN)/capi-kubeadm-control-plane
# The Docker provider's binary: its in-memory backend is the in-memory
# provider, which fakes each workload cluster without Docker.
CAPI_INFRASTRUCTURE := $(BIN)/capi-infrastructure-docker
CAPI_TEST_EXTENSION := $(BIN)/capi-test-extension
CLUSTERCTL := $(BIN)/clusterctl
CAPI_PROVIDERS_DATA := $(BIN)/capi-providers-data

.PHONY: capi-providers
capi-providers: $(CAPI_BOOTSTRAP) $(CAPI_CONTROL_PLANE) $(CAPI_INFRASTRUCTURE) $(CAPI_TEST_EXTENSION) $(CLUSTERCTL) $(CAPI_PROVIDERS_DATA) ## Build Cluster API v1.14.2's CABPK, KCP, in-memory provider, test extension and clusterctl.

$(CAPI_BOOTSTRAP): $(CAPI_PROVIDERS_SUM)
	@echo "building $@ (a cold build takes a few minutes; later ones share the baseline's packages)"
	cd hack/capi-providers && $(GO) build -o $@ sigs.k8s.io/cluster-api/bootstrap/kubeadm

$(CAPI_CONTROL_PLANE): $(CAPI_PROVIDERS_SUM)
	cd hack/capi-providers && $(GO) build -o $@ sigs.k8s.io/cluster-api/controlplane/kubeadm

$(CAPI_INFRASTRUCTURE): $(CAPI_PROVIDERS_SUM)
	cd hack/capi-providers && $(GO) build -o $@ sigs.k8s.io/cluster-api/test/infrastructure/docker

$(CAPI_TEST_EXTENSION): $(CAPI_PROVIDERS_SUM)
	cd hack/capi-providers && $(GO) build -o $@ sigs.k8s.io/cluster-api/test/extension

$(CLUSTERCTL): $(CAPI_PROVIDERS_SUM)
	cd hack/capi-providers && $(GO) build -o $@ sigs.k8s.io/cluster-api/cmd/clusterctl

$(CAPI_PROVIDERS_DATA): $(CAPI_PROVIDERS_SUM) hack/render-capi-providers.sh $(KUBECTL)
	hack/render-capi-providers.sh "$(GO)" "$(KUBECTL)" "$@"

# clusterctl's repositories as local folders, rendered from what
# capi-providers rendered (hack/render-clusterctl-repository.sh): Cluster
# API v1.14.2's core, CABPK, KCP, Docker provider and test extension as its
# release ships them, and the drop-in's own release of the core provider,
# with DROP_IN_IMAGE. Re-rendered every time (a few seconds), so that a
# file missing from it fails here, named.
CLUSTERCTL_REPOSITORY := $(BIN)/clusterctl-repository
DROP_IN_IMAGE ?= rsc.lab/core-manager:dev
# cert-manager's CRDs, from the release hack/cert-manager pins: what
# clusterctl's check of an externally provisioned cert-manager talks to.
CERT_MANAGER_CRDS := $(BIN)/cert-manager-crds

.PHONY: clusterctl-repository
clusterctl-repository: capi-providers $(CERT_MANAGER_CRDS) ## Write clusterctl repositories (Cluster API's and our core provider) into bin/.
	hack/render-clusterctl-repository.sh "$(CAPI_PROVIDERS_DATA)" "$(CAPI_VERSION)" "$(DROP_IN_IMAGE)" "$(CLUSTERCTL_REPOSITORY)"

# go list -m names a module's folder without downloading it: nothing is
# built from these modules, so they are downloaded first.
$(CERT_MANAGER_CRDS): hack/cert-manager/go.sum
	@cd hack/cert-manager && $(GO) mod download github.com/cert-manager/cert-manager
	@dir=$$(cd hack/cert-manager && $(GO) list -m -f '{{.Dir}}' github.com/cert-manager/cert-manager); \
	[ -d "$$dir/deploy/crds" ] || { echo "no deploy/crds in cert-manager's module ($$dir)" >&2; exit 1; }; \
	rm -rf "$@.tmp" && mkdir -p "$@.tmp" && cp "$$dir"/deploy/crds/*.yaml "$@.tmp"/ && \
	chmod u+w "$@.tmp"/*.yaml && rm -rf "$@" && mv "$@.tmp" "$@"

##@ Generate

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Write the CRDs into config/crd/bases and the ClusterRole into config/rbac.
	hack/generate-crds.sh "$(CONTROLLER_GEN)" "$(CRD_DIR)" "$(CRD_PACKAGES)" "$(CRD_FILES)"
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths=./internal/observe/... output:rbac:dir=config/rbac

.PHONY: verify-generate
verify-generate: $(CONTROLLER_GEN) ## Fail when the committed CRDs or ClusterRole differ from freshly generated ones.
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	hack/generate-crds.sh "$(CONTROLLER_GEN)" "$$tmp/crd" "$(CRD_PACKAGES)" "$(CRD_FILES)"; \
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths=./internal/observe/... output:rbac:dir="$$tmp/rbac"; \
	if ! diff -r "$$tmp/crd" "$(CRD_DIR)" || ! diff "$$tmp/rbac/role.yaml" config/rbac/role.yaml; then \
		echo "generated files are out of date: run 'make generate' and commit the result" >&2; exit 1; \
	fi

##@ Build and run

.PHONY: build
build: ## Build bin/runtime-sdk-controller, the read-only tools.
	$(GO) build -o $(MANAGER) ./cmd/runtime-sdk-controller

.PHONY: build-dev
build-dev: ## Build bin/rsc-dev, the launcher make run starts, and bin/sample-extension.
	cd test && $(GO) build -o $(DEV) ./cmd/rsc-dev
	cd test && $(GO) build -o $(SAMPLE_EXTENSION) ./cmd/sample-extension

.PHONY: run
run: run-plan tools capi-providers core-manager build build-dev ## Start a Cluster API management cluster with the drop-in and examples/ (ARGS adds flags).
	$(DEV) --local-dir "$(LOCAL_DIR)" $(ARGS)

# What a first `make run` builds, and about how long each part takes on 2
# cores, as measured on a fresh clone with an empty build cache and the
# module cache filled (9m08s to the first summary): the tools 4m44s, Cluster
# API's providers 2m19s, bin/core-manager 1m53s, our three binaries, which
# share the drop-in's packages, 3s. Downloading the modules comes on top.
.PHONY: run-plan
run-plan: ## Print what make run builds first, and about how long each part takes.
	@plan=""; \
	missing() { for f in "$$@"; do [ -e "$$f" ] || return 0; done; return 1; }; \
	if missing $(KUBE_APISERVER) $(KUBECTL) $(ETCD) $(CONTROLLER_GEN); then plan+="  tools (kube-apiserver, kubectl, etcd, controller-gen): about 5 minutes\n"; fi; \
	if missing $(CAPI_BOOTSTRAP) $(CAPI_CONTROL_PLANE) $(CAPI_INFRASTRUCTURE) $(CAPI_TEST_EXTENSION) $(CLUSTERCTL) $(CAPI_PROVIDERS_DATA); then \
		plan+="  Cluster API's CABPK, KCP, in-memory provider, test extension and clusterctl (make capi-providers): about 2.5 minutes\n"; fi; \
	if missing $(CORE_MANAGER); then plan+="  bin/core-manager, the drop-in: about 2 minutes\n"; fi; \
	if missing $(MANAGER) $(DEV) $(SAMPLE_EXTENSION); then plan+="  bin/runtime-sdk-controller (for who-uses), bin/rsc-dev, bin/sample-extension: seconds after the drop-in\n"; fi; \
	if [ -n "$$plan" ]; then printf "make run builds what bin/ lacks first (a cold build, 2 cores):\n$$plan"; fi

IMAGE := $(BIN)/runtime-sdk-controller-image.tar

.PHONY: image
image: ## Write the read-only tools' image to bin/runtime-sdk-controller-image.tar (no Docker needed).
	CGO_ENABLED=0 GOOS=linux $(GO) build -trimpath -o $(BIN)/linux/runtime-sdk-controller ./cmd/runtime-sdk-controller
	cd test && $(GO) build -o $(BIN)/rsc-image ./cmd/rsc-image
	$(BIN)/rsc-image --binary $(BIN)/linux/runtime-sdk-controller --out $(IMAGE)

CORE_MANAGER := $(BIN)/core-manager

.PHONY: core-manager
core-manager: ## Build bin/core-manager, the drop-in for Cluster API v1.14.2's core manager.
	@[ -e $(CORE_MANAGER) ] || echo "building $(CORE_MANAGER) (a cold build takes 2 to 5 minutes)"
	cd cmd/core-manager && $(GO) build -o $(CORE_MANAGER) .

CORE_MANAGER_IMAGE := $(BIN)/core-manager-image.tar

.PHONY: core-manager-image
core-manager-image: ## Write the drop-in's image, the binary at /manager, to bin/core-manager-image.tar.
	cd cmd/core-manager && CGO_ENABLED=0 GOOS=linux $(GO) build -trimpath -o $(BIN)/linux/core-manager .
	cd test && $(GO) build -o $(BIN)/rsc-image ./cmd/rsc-image
	$(BIN)/rsc-image --binary $(BIN)/linux/core-manager --path-in-image /manager --title core-manager --tag core-manager:latest --out $(CORE_MANAGER_IMAGE)

##@ Lab

.PHONY: build-bench
build-bench: ## Build bin/rsc-bench, the load tool and the drills.
	cd test && $(GO) build -o $(BENCH) ./cmd/rsc-bench

.PHONY: loadtest
loadtest: tools capi-baseline core-manager build-bench ## Run the load tool under the drop-in (seed, scale at N=1000); LOADTEST_ARGS adds flags.
	$(BENCH) loadtest --controller-binary $(CORE_MANAGER) --out loadtest-results $(LOADTEST_ARGS)

.PHONY: compare
compare: tools capi-baseline capi-patched core-manager build-bench ## Run the load tool under the drop-in and Cluster API's manager, without and with upstream/patches.
	$(BENCH) loadtest --compare capi,patched --controller-binary $(CORE_MANAGER) --patched-binary $(CAPI_PATCHED) \
		--local-dir .local/compare --out compare-results --idle-period 1m $(COMPARE_ARGS)

E2E_REPORT := docs/e2e/flow.md

.PHONY: compare-flow
compare-flow: tools capi-baseline capi-providers core-manager ## Run Cluster API's provisioning flow under the drop-in and its own manager; write docs/e2e/flow.md.
	@mkdir -p $(dir $(E2E_REPORT))
	cd test && RSC_BIN_DIR="$(BIN)" RSC_E2E_MANAGERS=core-manager,capi-baseline RSC_E2E_REPORT="$(ROOT)/$(E2E_REPORT)" \
		$(GO) test -count=1 -timeout 40m -v -run TestFlow_ ./e2e/

# The scale run's report; SCALE_ARGS="--clusters 50 --out docs/scale/n50.md"
# sets the size and where it goes.
SCALE_ARGS ?= --clusters 10 --out docs/scale/n10.md

.PHONY: scale
scale: tools capi-baseline capi-providers core-manager build-bench ## Run Cluster API's scale shape under the drop-in, its own manager and the response cache.
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_ARGS)

# Issue 46's run: N = 200, 20 at a time, behind the slow extension at
# 250 ms and 0 ms, each manager with the concurrency and client limits of
# Cluster API's scale work (Metal3's 1,000-Cluster runs), and a leader
# change at 250 ms. The upgrade is left out to fit the time budget
# (docs/scale/n200.md says why). 20 at a time, not all 200: with every
# Cluster created at once, kube-apiserver on 2 cores collapsed (no
# Cluster Available after 15 minutes, a list of the Clusters not answered
# within 60 s, most Cluster status patches refused with 409 Conflict);
# 20 keep the machine busy without it. Leases are renewed within 40 s,
# not 10 (KCP's defaults, not the core manager's): under that load
# kube-apiserver answered a renewal too late and the manager exited,
# "leader election lost". The notes say so in the report.
# Runs already in docs/scale/n200.json are kept (--resume): delete it to
# start over.
SCALE_N200_MANAGER_ARGS := --clustertopology-concurrency=100 --cluster-concurrency=100 --machine-concurrency=100 \
	--machineset-concurrency=100 --machinedeployment-concurrency=100 --kube-api-qps=100 --kube-api-burst=200 \
	--leader-elect-lease-duration=60s --leader-elect-renew-deadline=40s --leader-elect-retry-period=5s
SCALE_N200_SHAPE_NOTES := \
	--note "**Twenty Clusters at a time, not all 200.** With all 200 created at once, kube-apiserver on this 2-core machine collapsed: after 15 minutes no Cluster was Available, a list of the 200 Clusters was not answered within kube-apiserver's 60 s, and 3,558 of the core manager's 4,310 Cluster status patches in five minutes came back 409 Conflict, with kube-apiserver at 120 to 170% CPU, 47% of it in CRD patches. Twenty at a time keep the machine busy and let every Cluster through. The driver waits through a watch, so its reads add only the watch; Who set the pace below says which process used the CPU." \
	--note "**Leases of 60 s, 40 s and 5 s under both managers.** With the defaults (15 s, 10 s, 2 s) kube-apiserver under this load answered a renewal later than the renew deadline allows, and the manager exited with leader election lost. These are the defaults of Cluster API's own KubeadmControlPlane manager (controlplane/kubeadm/main.go); Cluster API's core manager runs the same leader election code, so both managers get them."
SCALE_N200_NOTES := $(SCALE_N200_SHAPE_NOTES) \
	--note "**The upgrade is left out, and the whole run spans sessions.** Issue 46 asks for create, idle, upgrade and delete under three managers at two latencies within 2.5 hours on this machine. The creates alone took 24m51s to 44m23s at N = 200, 3h35m for the six, so they already pass 2.5 hours. At N = 50 (docs/scale/n50.md) the upgrade took 1.9 times the create's wall time and 2.2 times its core-manager CPU: 45 to 85 minutes more a run here. The run saves after each manager and latency and goes on where it stopped (--resume); the times below say what each run took." \
	--note "**Wall times compare only on one machine, and even there one pair is not enough.** The runs span sessions, and the machines under them differ in speed. The three runs at 0 ms, and the drop-in's run at 250 ms, were made one after another on one machine (booted at 03:13 UTC on 2026-12-07); Cluster API's and the cache's runs at 250 ms on an earlier, faster one, where every process, the load driver and the slow extension included, used 1.4 to 1.7 times less CPU for the same work than in the drop-in's run at 250 ms (the driver 56.9 s against 97.1 s, kube-apiserver 1,687 s against 2,637 s, etcd 95 s against 137 s). On the one machine, at 0 ms, kube-apiserver still used 2,831 s in the drop-in's create against 2,404 s in Cluster API's for nearly the same requests from every client (180,864 against 182,363 over the run, in the audit log). Counts of requests and reconciles compare across runs; wall times and CPU seconds only on one machine, and with that spread. What the tables show is read in docs/results.md."
SCALE_N200_ARGS ?= --clusters 200 --concurrency 20 --latencies 250ms,0 --leader-election --leader-change-latencies 250ms \
	--leader-change-window 10m --events "create all,idle one sync period,leader change,delete all" \
	--event-timeout 60m --settle 3m $(addprefix --manager-arg=,$(SCALE_N200_MANAGER_ARGS)) --resume --made-by "make scale-n200" \
	$(SCALE_N200_NOTES) --out docs/scale/n200.md

.PHONY: scale-n200
scale-n200: tools capi-baseline capi-providers core-manager build-bench ## Run N = 200 behind a slow extension, with a leader change, into docs/scale/n200.md (hours).
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_N200_ARGS)

# scale-n200's runs span sessions, and the machines under them differ in
# speed (on one, every process, the load driver included, used 1.4 to 1.7
# times the CPU for the same work as on another, and the hypervisor took
# 6.8% of its CPU), so wall times compare only on one machine. This makes the
# drop-in and Cluster API's manager at 250 ms one after the other, with
# the settings of scale-n200, into their own report. It starts over every
# time (no --resume): a run kept from another session would be another
# machine's.
SCALE_N200_SAME_MACHINE_ARGS ?= --clusters 200 --concurrency 20 --latencies 250ms --managers drop-in,capi --leader-election \
	--leader-change-latencies 250ms --leader-change-window 10m --events "create all,idle one sync period,leader change,delete all" \
	--event-timeout 60m --settle 3m $(addprefix --manager-arg=,$(SCALE_N200_MANAGER_ARGS)) \
	--made-by "make scale-n200-same-machine" $(SCALE_N200_SHAPE_NOTES) \
	--note "**One machine, one session.** The drop-in's run and Cluster API's manager's run here were made one after the other on the same machine, to compare wall times: docs/scale/n200.md's runs span sessions, and only some of them share a machine." \
	--out docs/scale/n200-same-machine.md

# Issue 46 budgets the drop-in's peak RSS at 10% over Cluster API's at
# N = 200. In docs/scale/n200.md the cache's create at 250 ms peaked 12%
# over, the other runs 2 to 6%, and one manager's peak moved 55 MiB from
# run to run. This makes that pair again, one after the other on one
# machine, with the create only, into its own report. It is not the same
# code: the cache now drops answers once past their max age. It starts
# over every time (no --resume).
SCALE_N200_MEMORY_RUN := --clusters 200 --concurrency 20 --latencies 250ms --leader-election \
	--events "create all" --event-timeout 60m --settle 3m $(addprefix --manager-arg=,$(SCALE_N200_MANAGER_ARGS)) \
	$(SCALE_N200_SHAPE_NOTES)
SCALE_N200_MEMORY_ARGS ?= $(SCALE_N200_MEMORY_RUN) --managers capi,cache --made-by "make scale-n200-memory" \
	--note "**Peak RSS, the pair again.** docs/scale/n200.md's cache run at 250 ms peaked at 799 MiB in the create against Cluster API's 713 (+12%), over issue 46's budget of 10%; its other runs were 2 to 6% over Cluster API's. This run makes that pair again on one machine, with the create only, the cache dropping answers once past their max age." \
	--out docs/scale/n200-memory.md

.PHONY: scale-n200-memory
scale-n200-memory: tools capi-baseline capi-providers core-manager build-bench ## Run N = 200 at 250 ms, Cluster API then the cache, create only, for peak RSS (1.5 hours).
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_N200_MEMORY_ARGS)

# scale-n200-memory's pair, in the other order: the cache first, then
# Cluster API's manager. There the cache's run peaked 15% over Cluster
# API's, and its core manager, kube-apiserver, etcd and providers used 10
# to 21% more CPU. Made again in the other order, with pprof served on
# 127.0.0.1:6065 by both managers (as Cluster API's --profiler-address
# does; unread, it costs nothing), heap profiles can be read at the peaks.
SCALE_N200_MEMORY_SWAPPED_ARGS ?= $(SCALE_N200_MEMORY_RUN) --managers cache,capi \
	--manager-arg=--profiler-address=127.0.0.1:6065 --made-by "make scale-n200-memory-swapped" \
	--note "**The pair of docs/scale/n200-memory.md in the other order.** There Cluster API's manager ran first, and the cache's run peaked 15% over it in RSS, and its core manager, kube-apiserver, etcd and providers used 10 to 21% more CPU. Here the cache runs first, then Cluster API's manager, one after the other on one machine. Both managers serve pprof on 127.0.0.1:6065, read for heap profiles during the create." \
	--out docs/scale/n200-memory-swapped.md

.PHONY: scale-n200-memory-swapped
scale-n200-memory-swapped: tools capi-baseline capi-providers core-manager build-bench ## Run scale-n200-memory's pair with the cache first (2 hours).
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_N200_MEMORY_SWAPPED_ARGS)

# scale-n200-memory's pair a third time, in its first order (Cluster API's
# manager, then the cache), with pprof served as in the swapped pair. Cluster
# API's own peak moved from 713 to 825 MiB over three creates of this shape,
# so one pair cannot tell a 10% budget apart; each pair made on one machine
# adds one more.
SCALE_N200_MEMORY_PAIR := $(SCALE_N200_MEMORY_RUN) --managers capi,cache --manager-arg=--profiler-address=127.0.0.1:6065
SCALE_N200_MEMORY_AGAIN_ARGS ?= $(SCALE_N200_MEMORY_PAIR) --made-by "make scale-n200-memory-again" \
	--note "**The pair of docs/scale/n200-memory.md a third time, in its first order.** Cluster API's manager peaked at 713, 787 and 825 MiB in three creates of this shape, and the cache's runs at 799, 905 and 745 (the last unfinished after an hour). This pair adds one more of each, one after the other on one machine, Cluster API's manager first. Both managers serve pprof on 127.0.0.1:6065." \
	--out docs/scale/n200-memory-again.md

.PHONY: scale-n200-memory-again
scale-n200-memory-again: tools capi-baseline capi-providers core-manager build-bench ## Run scale-n200-memory's pair a third time, Cluster API first (1.5 hours).
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_N200_MEMORY_AGAIN_ARGS)

# scale-n200-memory's pair a fourth time, in its first order, as in
# scale-n200-memory-again. Its committed run had a sampler beside it, run
# by hand and not part of this target, that read each controller's active
# workers beside the RSS, to see whether the peaks follow the work in
# flight.
SCALE_N200_MEMORY_FOURTH_ARGS ?= $(SCALE_N200_MEMORY_PAIR) --made-by "make scale-n200-memory-fourth" --out docs/scale/n200-memory-fourth.md \
	--note "**The pair of docs/scale/n200-memory.md a fourth time, in its first order,** as docs/scale/n200-memory-again.md made it: Cluster API's manager first, then the drop-in with the response cache, one after the other on one machine, both serving pprof on 127.0.0.1:6065."

.PHONY: scale-n200-memory-fourth
scale-n200-memory-fourth: tools capi-baseline capi-providers core-manager build-bench ## Run scale-n200-memory's pair a fourth time, Cluster API first (2 hours).
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_N200_MEMORY_FOURTH_ARGS)

.PHONY: scale-n200-same-machine
scale-n200-same-machine: tools capi-baseline capi-providers core-manager build-bench ## Run N = 200 at 250 ms, the drop-in then Cluster API, on one machine (2.5 hours).
	RSC_BIN_DIR="$(BIN)" $(BENCH) scale --bin-dir "$(BIN)" --local-dir .local/scale $(SCALE_N200_SAME_MACHINE_ARGS)

.PHONY: drill
drill: tools $(CAPI_BASELINE_CRDS) core-manager build-bench ## Run the fault drills (flap, kube-apiserver restart, soak, property) against the drop-in.
	$(BENCH) drill --core-manager $(CORE_MANAGER) --out drill-results $(DRILL_ARGS)

.PHONY: clean-local
clean-local: ## Wipe the local control plane's data directory.
	rm -rf "$(LOCAL_DIR)"

##@ Test

# The Go modules `make lint` checks, each with the one .golangci.yml at the root:
# the product, the drop-in and the lab.
LINT_MODULES := . cmd/core-manager test

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint (.golangci.yml) on each Go module.
	@for module in $(LINT_MODULES); do \
		echo "golangci-lint in $$module"; \
		(cd $$module && $(GOLANGCI_LINT) run ./...) || exit 1; \
	done
	@# golangci-lint's goheader checks the modules above; this, every module.
	hack/add-license-headers.sh --check

.PHONY: license-headers
license-headers: ## Add the Apache-2.0 license header to every Go file that lacks it.
	hack/add-license-headers.sh

.PHONY: test
test: tools capi-baseline capi-providers $(CERT_MANAGER_CRDS) $(CYCLONEDX_GOMOD) core-manager build verify-generate lint ## Run every test, with the race detector: unit, envtest, differential and Cluster API's flow.
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted" >&2; exit 1; fi
	# The envtest packages take minutes on two loaded cores: go test's
	# default 10-minute limit per package leaves them little room.
	RSC_BIN_DIR="$(BIN)" $(GO) test -race -timeout 30m $(TEST_FLAGS) ./...
	# The drop-in core manager is its own module (it links Cluster API).
	cd cmd/core-manager && $(GO) vet ./... && RSC_BIN_DIR="$(BIN)" $(GO) test -race $(TEST_FLAGS) ./...
	# The lab is its own module too: the tools, the harnesses and the tests
	# that run the shipped binaries beside Cluster API's own manager.
	# Cluster API's flow takes minutes on two loaded cores: go test's
	# default 10-minute limit per package is too tight for it.
	cd test && $(GO) vet ./... && RSC_BIN_DIR="$(BIN)" $(GO) test -race -timeout 30m $(TEST_FLAGS) ./...

.PHONY: check-commits
check-commits: ## Check the messages of the commits since the rule began (hack/check-commits.sh).
	hack/check-commits.sh

# The unit tier: the product modules' tests under go test -short, which
# starts no kube-apiserver and builds nothing into bin/ (toolbin.SkipShort
# and apiservertest.Run skip the tests that need them). No race detector,
# and go test's result cache is on: an inner loop, not make test.
.PHONY: test-unit
test-unit: ## Run the product modules' unit tests, without a kube-apiserver (go test -short).
	$(GO) test -short $(TEST_FLAGS) ./...
	cd cmd/core-manager && $(GO) test -short $(TEST_FLAGS) ./...

FUZZTIME ?= 60s
# Fuzz targets as package:target; `make fuzz` runs each for FUZZTIME.
FUZZ_TARGETS := ./internal/runtime/client:FuzzDiscoveryResponse ./internal/runtime/client:FuzzDiscoverVariablesResponse \
	./pkg/extensionindex:FuzzReferences ./pkg/registration:FuzzHandlerName

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME (default 60s each).
	@for target in $(FUZZ_TARGETS); do \
		pkg=$${target%%:*}; name=$${target##*:}; \
		echo "fuzzing $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

.PHONY: help
help: ## List the targets by section.
	@awk 'BEGIN {FS = ":.*## "} /^##@ / {printf "\n%s\n", substr($$0, 5)} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-22s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

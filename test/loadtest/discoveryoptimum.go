package loadtest

// DiscoveryOptimumNote says in one line what a row's optimum Discovery
// counts: Cluster API's for what users do, which the drop-in keeps.
const DiscoveryOptimumNote = "optimum Discovery is Cluster API's for what users do (the drop-in's): one per ExtensionConfig created or updated " +
	"(spec, labels or annotations) and per status another writer changed; none for the controller's own status writes, " +
	"a Namespace or a ClusterClass; each config once per period"

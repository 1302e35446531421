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

package drill

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is what every drill returns: the problems its figures show, and
// an account of them for people.
type Report interface {
	Problems() []string
	Write(w io.Writer) error
}

var (
	_ Report = (*FlapReport)(nil)
	_ Report = (*RestartReport)(nil)
	_ Report = (*SoakReport)(nil)
	_ Report = (*PropertyReport)(nil)
)

// Write prints the flap drill's windows and totals.
func (r *FlapReport) Write(w io.Writer) error {
	o := r.Options
	fmt.Fprintf(w, "\nflap: %d ClusterClasses on %d extensions, %s of faults in %s phases, a registration change every %s\n",
		o.ClusterClasses, o.ExtensionConfigs, o.Duration, o.Phase, o.ChangeEvery)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "at\tphase\treconciles\terrors\tenqueued\tDiscoverVariables calls\tDiscovery calls\treconciles/s\tcalls/s\t")
	for _, win := range r.Windows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", win.At.Round(time.Second), win.Phase, win.Reconciles, win.ReconcileErrors,
			win.Enqueued, win.DiscoverVariablesCalls, win.DiscoveryCalls, rate(win.Reconciles, win.Seconds), rate(win.DiscoverVariablesCalls, win.Seconds))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	peakReconciles, peakCalls := 0.0, 0.0
	for _, win := range r.Windows {
		if win.Seconds > 0 {
			peakReconciles = max(peakReconciles, float64(win.Reconciles)/win.Seconds)
			peakCalls = max(peakCalls, float64(win.DiscoverVariablesCalls)/win.Seconds)
		}
	}
	seconds := o.Duration.Seconds()
	fmt.Fprintf(w, "total: %d reconciles (%d errors; backoff bound %d), %d event enqueues, %d DiscoverVariables and %d Discovery calls over %d changes\n",
		r.Reconciles, r.ReconcileErrors, r.ReconcileBound, r.Enqueued, r.DiscoverVariablesCalls, r.DiscoveryCalls, r.Changes)
	fmt.Fprintf(w, "rates: reconciles %s mean, %.1f/s peak; DiscoverVariables calls %s mean, %.1f/s peak\n",
		rate(r.Reconciles, seconds), peakReconciles, rate(r.DiscoverVariablesCalls, seconds), peakCalls)
	fmt.Fprintf(w, "status: %d states checked, %d lost good variables%s; healed (all on the new answer) in %s; controller pid %d throughout\n",
		r.Observed, len(r.Losses), losses(r.Losses), r.Healed.Round(time.Millisecond), r.ControllerPID)
	return nil
}

// Write prints the restart drill's figures.
func (r *RestartReport) Write(w io.Writer) error {
	o := r.Options
	fmt.Fprintf(w, "\nrestart: %d ClusterClasses on %d extensions, kube-apiserver down for %s\n", o.ClusterClasses, o.ExtensionConfigs, o.Outage)
	fmt.Fprintf(w, "converged when stopped: %d of %d\n", r.ConvergedAtStop, o.ClusterClasses)
	fmt.Fprintf(w, "during the outage: %d reconciles, %d failed; controller pid %d alive at %d checks\n",
		r.ReconcilesDuringOutage, r.ReconcileErrorsDuringOutage, r.ControllerPID, r.AliveChecks)
	fmt.Fprintf(w, "after: all %d converged %s after kube-apiserver was ready; %d states checked, %d lost good variables%s\n",
		o.ClusterClasses, r.Recovered.Round(time.Millisecond), r.Observed, len(r.Losses), losses(r.Losses))
	return nil
}

// Write prints the soak's samples and trends.
func (r *SoakReport) Write(w io.Writer) error {
	o := r.Options
	fmt.Fprintf(w, "\nsoak: %d ClusterClasses, %d ExtensionConfigs, %d namespaces for %s, a change every %s (set-up %s)\n",
		o.ClusterClasses, o.ExtensionConfigs, o.Namespaces, o.Duration, o.ChangeEvery, r.Setup.Round(time.Second))
	var kinds []string
	for _, kind := range soakChanges {
		kinds = append(kinds, fmt.Sprintf("%s %d", kind, r.Changes[kind]))
	}
	fmt.Fprintf(w, "changes: %s\n", strings.Join(kinds, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "at\tRSS MiB\theap MiB\tgoroutines\tcache entries\thandlers\treconciles\tDiscoverVariables calls\t")
	for _, s := range r.Samples {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%d\t\n", s.At.Round(time.Second), mib(s.RSSBytes), mib(s.HeapBytes), s.Goroutines,
			s.CacheEntries, s.RegisteredHandlers, s.Reconciles, s.DiscoverVariablesCalls)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "RSS %.1f..%.1f MiB (%+.1f%% last third vs first), heap %.1f..%.1f MiB (%+.1f%%), goroutines %d..%d (%+.1f%%)\n",
		mib(r.RSS.Min), mib(r.RSS.Max), 100*r.RSS.Growth, mib(r.Heap.Min), mib(r.Heap.Max), 100*r.Heap.Growth,
		r.Goroutines.Min, r.Goroutines.Max, 100*r.Goroutines.Growth)
	fmt.Fprintf(w, "call cache: at most %d entries (bound %d); empty %s after every ExtensionConfig was deleted\n",
		r.CacheEntriesMax, r.CacheBound, r.CacheEmptied.Round(time.Millisecond))
	fmt.Fprintf(w, "soak cost %d reconciles and %d DiscoverVariables calls; settled %s after the last change; %d states checked, %d lost good variables%s\n",
		r.Reconciles, r.Calls, r.Converged.Round(time.Millisecond), r.Observed, len(r.Losses), losses(r.Losses))
	return nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func losses(l []Loss) string {
	if len(l) == 0 {
		return ""
	}
	var parts []string
	for i, loss := range l {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(l)-3))
			break
		}
		parts = append(parts, loss.String())
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// Write prints the property drill's rounds against their bounds.
func (r *PropertyReport) Write(w io.Writer) error {
	o := r.Options
	fmt.Fprintf(w, "\nproperty: seed %d; %d ClusterClasses, %d ExtensionConfigs, %d namespaces; up to %d events a round, %s apart at most; failure round every %d\n",
		o.Seed, o.ClusterClasses, o.ExtensionConfigs, o.Namespaces, o.MaxEventsPerRound, o.MaxSpacing, o.FailureRoundEvery)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "round\tevents\tDiscovery failing\treconciles\tbound\tcalls\tbound\tidle refreshes\tchanged/failed refreshes\terrors\tquiet after\tmodel mismatches\tfresh writes\t")
	for _, rd := range r.Rounds {
		failing := strconv.Itoa(rd.FailingConfigs)
		if rd.FailureRound {
			failing += " (failure round)"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d/%d\t%d\t%s\t%d\t%d\t\n", rd.Round, rd.Events, failing, rd.Reconciles, rd.ReconcileBound,
			rd.Calls, rd.CallBound, rd.IdleRefreshes, rd.ChangedRefreshes, rd.FailedRefreshes, rd.ReconcileErrors, rd.Settled.Round(time.Millisecond),
			len(rd.ModelMismatches), len(rd.FreshWrites))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := r.Totals
	kinds := make([]string, 0, len(r.Kinds))
	for kind, n := range r.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d", kind, n))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "events: %d in %d rounds (%s)\n", t.Events, len(r.Rounds), strings.Join(kinds, ", "))
	whileFailing := make([]string, 0, len(r.WhileFailing))
	for kind, n := range r.WhileFailing {
		whileFailing = append(whileFailing, fmt.Sprintf("%s %d", kind, n))
	}
	sort.Strings(whileFailing)
	fmt.Fprintf(w, "made to a config whose Discovery failed: %s\n", strings.Join(whileFailing, ", "))
	fmt.Fprintf(w, "total: %d reconciles against a bound of %d (%s), %d calls against %d (%s), %d idle refreshes, %d failed reconciles\n",
		t.Reconciles, t.ReconcileBound, share(t.Reconciles, t.ReconcileBound), t.Calls, t.CallBound, share(t.Calls, t.CallBound), t.IdleRefreshes, t.ReconcileErrors)
	fmt.Fprintf(w, "fresh controller checks: %d, objects it rewrote: %d; ExtensionConfig statuses unlike the model: %d; slowest round quiet %s after its last event\n",
		r.Checks, len(t.FreshWrites), len(t.ModelMismatches), t.Settled.Round(time.Millisecond))
	return nil
}

// share is part over whole as a percentage.
func share(part int64, whole int) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(whole))
}


using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-gc' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-gc'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-gc' {
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Classify every ownerReference as the GC would and report what is wrong')
            [CompletionResult]::new('collect', 'collect', [CompletionResultType]::ParameterValue, 'Show what the GC would delete or patch (dry run), or preview a delete''s cascade')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Write a snapshot of every deletable resource''s object metadata')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Show the ownership graph as the GC sees it: a tree, or DOT identical to the GC''s debug endpoint, Mermaid or JSON; or compare it with the GC''s own graph')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Watch the cluster like a shadow GC: report findings as they appear, change or resolve, with what the GC will do and when (now, at its next restart, never)')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-gc;audit' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only objects matching this label selector (the analysis still sees everything)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only objects matching this label selector (the analysis still sees everything)')
            [CompletionResult]::new('--kind', '--kind', [CompletionResultType]::ParameterName, 'Only objects of these kinds (kind, plural or kind.group; repeatable or comma-separated)')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with code 5 when a finding has at least this severity (never, info, warning, error, critical)')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Suppress the findings recorded in this baseline file (see --write-baseline)')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Write the current findings as a baseline file (then exit as usual)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--events', '--events', [CompletionResultType]::ParameterName, 'Live clusters: attach the `OwnerRefInvalidNamespace` events the GC has recorded to the matching cross-namespace findings (one extra list of core Events)')
            [CompletionResult]::new('--strict-coverage', '--strict-coverage', [CompletionResultType]::ParameterName, 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;collect' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--delete', '--delete', [CompletionResultType]::ParameterName, 'Preview deleting this object (KIND/NAME, e.g. deployment/web or deployments.apps/web)')
            [CompletionResult]::new('--cascade', '--cascade', [CompletionResultType]::ParameterName, 'Propagation policy of the previewed delete')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'The record of every action --apply attempts (NDJSON; default: ./kubectl-gc-apply-<UTC time>.json; never overwritten)')
            [CompletionResult]::new('--qps', '--qps', [CompletionResultType]::ParameterName, 'Requests per second --apply may send (bursts of 1.5 × N)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--apply', '--apply', [CompletionResultType]::ParameterName, 'Perform the plan on the live cluster (each action re-verified first; default: dry run). With --delete: perform that delete only (the GC does the cascade)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Apply without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Apply without asking (required when stdin or stderr is not a terminal)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;check' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target Kubernetes version for the upgrade check (e.g. 1.25)')
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with code 5 when a finding has at least this severity')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Suppress the findings recorded in this baseline file (see --write-baseline)')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Write the current findings as a baseline file (then exit as usual)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--strict-coverage', '--strict-coverage', [CompletionResultType]::ParameterName, 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'What a restarted GC deletes or strips right after it starts')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'What changes when the GC is upgraded (--to required)')
            [CompletionResult]::new('health', 'health', [CompletionResultType]::ParameterValue, 'Resources the GC cannot list or watch, and deletions that do not progress')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-gc;check;restart' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target Kubernetes version for the upgrade check (e.g. 1.25)')
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with code 5 when a finding has at least this severity')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Suppress the findings recorded in this baseline file (see --write-baseline)')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Write the current findings as a baseline file (then exit as usual)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--strict-coverage', '--strict-coverage', [CompletionResultType]::ParameterName, 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;check;upgrade' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target Kubernetes version for the upgrade check (e.g. 1.25)')
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with code 5 when a finding has at least this severity')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Suppress the findings recorded in this baseline file (see --write-baseline)')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Write the current findings as a baseline file (then exit as usual)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--strict-coverage', '--strict-coverage', [CompletionResultType]::ParameterName, 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;check;health' {
            [CompletionResult]::new('--to', '--to', [CompletionResultType]::ParameterName, 'Target Kubernetes version for the upgrade check (e.g. 1.25)')
            [CompletionResult]::new('--crd', '--crd', [CompletionResultType]::ParameterName, 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with code 5 when a finding has at least this severity')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Suppress the findings recorded in this baseline file (see --write-baseline)')
            [CompletionResult]::new('--write-baseline', '--write-baseline', [CompletionResultType]::ParameterName, 'Write the current findings as a baseline file (then exit as usual)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--strict-coverage', '--strict-coverage', [CompletionResultType]::ParameterName, 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;check;help' {
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'What a restarted GC deletes or strips right after it starts')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'What changes when the GC is upgraded (--to required)')
            [CompletionResult]::new('health', 'health', [CompletionResultType]::ParameterValue, 'Resources the GC cannot list or watch, and deletions that do not progress')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-gc;check;help;restart' {
            break
        }
        'kubectl-gc;check;help;upgrade' {
            break
        }
        'kubectl-gc;check;help;health' {
            break
        }
        'kubectl-gc;check;help;help' {
            break
        }
        'kubectl-gc;snapshot' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'File to write (gzip-compressed when it ends in .gz; `-` for stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'File to write (gzip-compressed when it ends in .gz; `-` for stdout)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;graph' {
            [CompletionResult]::new('--uid', '--uid', [CompletionResultType]::ParameterName, 'Start from the object with this UID (repeatable), like the GC endpoint''s ?uid=')
            [CompletionResult]::new('--direction', '--direction', [CompletionResultType]::ParameterName, 'From the start objects, follow owners (up), dependents (down) or both')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'At most this many ownerReference hops from the start objects')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format (default: tree on a terminal, dot otherwise)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format (default: tree on a terminal, dot otherwise)')
            [CompletionResult]::new('--dot-format', '--dot-format', [CompletionResultType]::ParameterName, 'The DOT flavour: current (Kubernetes ≥ 1.26) or legacy (1.12–1.25)')
            [CompletionResult]::new('--from-gc', '--from-gc', [CompletionResultType]::ParameterName, 'Compare with the real GC''s graph: its debug endpoint (http(s)://HOST:PORT, optionally with the path) or a saved DOT file. Prints the differences (-o json for JSON)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('--gc-insecure-skip-tls-verify', '--gc-insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the TLS certificate of the --from-gc endpoint (kube-controller-manager usually serves a self-signed one)')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;watch' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit with code 5 at the first transition that appears or changes at or above this severity (never, info, warning, error, critical)')
            [CompletionResult]::new('--metrics-addr', '--metrics-addr', [CompletionResultType]::ParameterName, 'Serve Prometheus metrics (/metrics), /healthz and /readyz on this address (e.g. 0.0.0.0:9464)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'How often discovery is refreshed and ages re-evaluated (the GC''s resync period)')
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;completion' {
            [CompletionResult]::new('--snapshot', '--snapshot', [CompletionResultType]::ParameterName, 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Only this namespace (default: the context''s namespace for live clusters, all for files)')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'Resources listed concurrently from a live cluster')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per list page')
            [CompletionResult]::new('--gc-version', '--gc-version', [CompletionResultType]::ParameterName, 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour: auto (only on a terminal and without NO_COLOR), always, never')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Walk directories given with -f recursively')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'All namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'kubectl-gc;help' {
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Classify every ownerReference as the GC would and report what is wrong')
            [CompletionResult]::new('collect', 'collect', [CompletionResultType]::ParameterValue, 'Show what the GC would delete or patch (dry run), or preview a delete''s cascade')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Write a snapshot of every deletable resource''s object metadata')
            [CompletionResult]::new('graph', 'graph', [CompletionResultType]::ParameterValue, 'Show the ownership graph as the GC sees it: a tree, or DOT identical to the GC''s debug endpoint, Mermaid or JSON; or compare it with the GC''s own graph')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Watch the cluster like a shadow GC: report findings as they appear, change or resolve, with what the GC will do and when (now, at its next restart, never)')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script (bash, zsh, fish, powershell, elvish)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-gc;help;audit' {
            break
        }
        'kubectl-gc;help;collect' {
            break
        }
        'kubectl-gc;help;check' {
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'What a restarted GC deletes or strips right after it starts')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'What changes when the GC is upgraded (--to required)')
            [CompletionResult]::new('health', 'health', [CompletionResultType]::ParameterValue, 'Resources the GC cannot list or watch, and deletions that do not progress')
            break
        }
        'kubectl-gc;help;check;restart' {
            break
        }
        'kubectl-gc;help;check;upgrade' {
            break
        }
        'kubectl-gc;help;check;health' {
            break
        }
        'kubectl-gc;help;snapshot' {
            break
        }
        'kubectl-gc;help;graph' {
            break
        }
        'kubectl-gc;help;watch' {
            break
        }
        'kubectl-gc;help;completion' {
            break
        }
        'kubectl-gc;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}

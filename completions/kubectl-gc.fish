# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_gc_global_optspecs
    string join \n snapshot= f/filename= R/recursive kubeconfig= context= cluster= user= as= as-group= request-timeout= n/namespace= A/all-namespaces concurrency= chunk-size= gc-version= color= h/help V/version
end

function __fish_kubectl_gc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_gc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_gc_using_subcommand
    set -l cmd (__fish_kubectl_gc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "audit" -d 'Classify every ownerReference as the GC would and report what is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "collect" -d 'Show what the GC would delete or patch (dry run), or preview a delete\'s cascade'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "check" -d 'Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "snapshot" -d 'Write a snapshot of every deletable resource\'s object metadata'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "graph" -d 'Show the ownership graph as the GC sees it: a tree, or DOT identical to the GC\'s debug endpoint, Mermaid or JSON; or compare it with the GC\'s own graph'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "watch" -d 'Watch the cluster like a shadow GC: report findings as they appear, change or resolve, with what the GC will do and when (now, at its next restart, never)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s l -l selector -d 'Only objects matching this label selector (the analysis still sees everything)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l kind -d 'Only objects of these kinds (kind, plural or kind.group; repeatable or comma-separated)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l fail-on -d 'Exit with code 5 when a finding has at least this severity (never, info, warning, error, critical)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l events -d 'Live clusters: attach the `OwnerRefInvalidNamespace` events the GC has recorded to the matching cross-namespace findings (one extra list of core Events)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l delete -d 'Preview deleting this object (KIND/NAME, e.g. deployment/web or deployments.apps/web)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l cascade -d 'Propagation policy of the previewed delete' -r -f -a "background\t'propagationPolicy=Background (kubectl\'s default)'
foreground\t'propagationPolicy=Foreground'
orphan\t'propagationPolicy=Orphan'
default\t'No policy: the type\'s default (RC, Job and CronJob orphan; others background)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l record -d 'The record of every action --apply attempts (NDJSON; default: ./kubectl-gc-apply-<UTC time>.json; never overwritten)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l qps -d 'Requests per second --apply may send (bursts of 1.5 × N)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l apply -d 'Perform the plan on the live cluster (each action re-verified first; default: dry run). With --delete: perform that delete only (the GC does the cascade)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s y -l yes -d 'Apply without asking (required when stdin or stderr is not a terminal)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l to -d 'Target Kubernetes version for the upgrade check (e.g. 1.25)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l crd -d 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -f -a "restart" -d 'What a restarted GC deletes or strips right after it starts'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -f -a "upgrade" -d 'What changes when the GC is upgraded (--to required)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -f -a "health" -d 'Resources the GC cannot list or watch, and deletions that do not progress'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l to -d 'Target Kubernetes version for the upgrade check (e.g. 1.25)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l crd -d 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l to -d 'Target Kubernetes version for the upgrade check (e.g. 1.25)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l crd -d 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l to -d 'Target Kubernetes version for the upgrade check (e.g. 1.25)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l crd -d 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "restart" -d 'What a restarted GC deletes or strips right after it starts'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "upgrade" -d 'What changes when the GC is upgraded (--to required)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "health" -d 'Resources the GC cannot list or watch, and deletions that do not progress'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s o -l output -d 'File to write (gzip-compressed when it ends in .gz; `-` for stdout)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l uid -d 'Start from the object with this UID (repeatable), like the GC endpoint\'s ?uid=' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l direction -d 'From the start objects, follow owners (up), dependents (down) or both' -r -f -a "up\t'Owners, their owners, …'
down\t'Dependents, their dependents, …'
both\t'Both: the connected component (the GC endpoint\'s ?uid=)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l depth -d 'At most this many ownerReference hops from the start objects' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s o -l output -d 'Output format (default: tree on a terminal, dot otherwise)' -r -f -a "tree\t'kubectl-tree-like: owners above dependents, with the GC\'s view on every line'
dot\t'Graphviz DOT, byte-for-byte the GC debug endpoint\'s format (see --dot-format)'
mermaid\t'A Mermaid flowchart (renders on GitHub)'
json\t'JSON: nodes and edges with the DOT attributes'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l dot-format -d 'The DOT flavour: current (Kubernetes ≥ 1.26) or legacy (1.12–1.25)' -r -f -a "current\t'Kubernetes 1.26 and later: UID vertex ids, Go-quoted strings'
legacy\t'Kubernetes 1.12–1.25 (gonum\'s encoder): integer vertex ids'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l from-gc -d 'Compare with the real GC\'s graph: its debug endpoint (http(s)://HOST:PORT, optionally with the path) or a saved DOT file. Prints the differences (-o json for JSON)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l gc-insecure-skip-tls-verify -d 'Do not verify the TLS certificate of the --from-gc endpoint (kube-controller-manager usually serves a self-signed one)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s o -l output -d 'Output format' -r -f -a "text\t'One line per transition'
json\t'One JSON object per transition (NDJSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l fail-on -d 'Exit with code 5 at the first transition that appears or changes at or above this severity (never, info, warning, error, critical)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l metrics-addr -d 'Serve Prometheus metrics (/metrics), /healthz and /readyz on this address (e.g. 0.0.0.0:9464)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l resync -d 'How often discovery is refreshed and ages re-evaluated (the GC\'s resync period)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l chunk-size -d 'Objects per list page' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "audit" -d 'Classify every ownerReference as the GC would and report what is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "collect" -d 'Show what the GC would delete or patch (dry run), or preview a delete\'s cascade'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "check" -d 'Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "snapshot" -d 'Write a snapshot of every deletable resource\'s object metadata'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "graph" -d 'Show the ownership graph as the GC sees it: a tree, or DOT identical to the GC\'s debug endpoint, Mermaid or JSON; or compare it with the GC\'s own graph'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "watch" -d 'Watch the cluster like a shadow GC: report findings as they appear, change or resolve, with what the GC will do and when (now, at its next restart, never)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph watch completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "restart" -d 'What a restarted GC deletes or strips right after it starts'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "upgrade" -d 'What changes when the GC is upgraded (--to required)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "health" -d 'Resources the GC cannot list or watch, and deletions that do not progress'

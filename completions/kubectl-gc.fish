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
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "snapshot" -d 'Write a snapshot of every deletable resource\'s object metadata'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s o -l output -d 'Output format' -r -f -a "table\t'A table'
wide\t'A table with more columns'
json\t'JSON (stable, documented schema)'
yaml\t'YAML (same schema as JSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s l -l selector -d 'Only objects matching this label selector (the analysis still sees everything)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l kind -d 'Only objects of these kinds (kind, plural or kind.group; repeatable or comma-separated)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l fail-on -d 'Exit with code 5 when a finding has at least this severity (never, info, warning, error, critical)' -r
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
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s A -l all-namespaces -d 'All namespaces'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s h -l help -d 'Print help (see more with \'--help\')'
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
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect snapshot completion help" -f -a "audit" -d 'Classify every ownerReference as the GC would and report what is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect snapshot completion help" -f -a "collect" -d 'Show what the GC would delete or patch (dry run), or preview a delete\'s cascade'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect snapshot completion help" -f -a "snapshot" -d 'Write a snapshot of every deletable resource\'s object metadata'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect snapshot completion help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect snapshot completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'


use builtin;
use str;

set edit:completion:arg-completer[kubectl-gc] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kubectl-gc'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kubectl-gc'= {
            cand --snapshot 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster'
            cand -f 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --filename 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand --as 'Username to impersonate'
            cand --as-group 'Group to impersonate (repeatable)'
            cand --request-timeout 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)'
            cand -n 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --namespace 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --concurrency 'Resources listed concurrently from a live cluster'
            cand --chunk-size 'Objects per list page'
            cand --gc-version 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)'
            cand --color 'Colour: auto (only on a terminal and without NO_COLOR), always, never'
            cand -R 'Walk directories given with -f recursively'
            cand --recursive 'Walk directories given with -f recursively'
            cand -A 'All namespaces'
            cand --all-namespaces 'All namespaces'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand audit 'Classify every ownerReference as the GC would and report what is wrong'
            cand collect 'Show what the GC would delete or patch (dry run), or preview a delete''s cascade'
            cand snapshot 'Write a snapshot of every deletable resource''s object metadata'
            cand completion 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-gc;audit'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand -l 'Only objects matching this label selector (the analysis still sees everything)'
            cand --selector 'Only objects matching this label selector (the analysis still sees everything)'
            cand --kind 'Only objects of these kinds (kind, plural or kind.group; repeatable or comma-separated)'
            cand --fail-on 'Exit with code 5 when a finding has at least this severity (never, info, warning, error, critical)'
            cand --snapshot 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster'
            cand -f 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --filename 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand --as 'Username to impersonate'
            cand --as-group 'Group to impersonate (repeatable)'
            cand --request-timeout 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)'
            cand -n 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --namespace 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --concurrency 'Resources listed concurrently from a live cluster'
            cand --chunk-size 'Objects per list page'
            cand --gc-version 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)'
            cand --color 'Colour: auto (only on a terminal and without NO_COLOR), always, never'
            cand -R 'Walk directories given with -f recursively'
            cand --recursive 'Walk directories given with -f recursively'
            cand -A 'All namespaces'
            cand --all-namespaces 'All namespaces'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-gc;collect'= {
            cand -o 'Output format'
            cand --output 'Output format'
            cand --delete 'Preview deleting this object (KIND/NAME, e.g. deployment/web or deployments.apps/web)'
            cand --cascade 'Propagation policy of the previewed delete'
            cand --snapshot 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster'
            cand -f 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --filename 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand --as 'Username to impersonate'
            cand --as-group 'Group to impersonate (repeatable)'
            cand --request-timeout 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)'
            cand -n 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --namespace 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --concurrency 'Resources listed concurrently from a live cluster'
            cand --chunk-size 'Objects per list page'
            cand --gc-version 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)'
            cand --color 'Colour: auto (only on a terminal and without NO_COLOR), always, never'
            cand -R 'Walk directories given with -f recursively'
            cand --recursive 'Walk directories given with -f recursively'
            cand -A 'All namespaces'
            cand --all-namespaces 'All namespaces'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-gc;snapshot'= {
            cand -o 'File to write (gzip-compressed when it ends in .gz; `-` for stdout)'
            cand --output 'File to write (gzip-compressed when it ends in .gz; `-` for stdout)'
            cand --snapshot 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster'
            cand -f 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --filename 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand --as 'Username to impersonate'
            cand --as-group 'Group to impersonate (repeatable)'
            cand --request-timeout 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)'
            cand -n 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --namespace 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --concurrency 'Resources listed concurrently from a live cluster'
            cand --chunk-size 'Objects per list page'
            cand --gc-version 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)'
            cand --color 'Colour: auto (only on a terminal and without NO_COLOR), always, never'
            cand -R 'Walk directories given with -f recursively'
            cand --recursive 'Walk directories given with -f recursively'
            cand -A 'All namespaces'
            cand --all-namespaces 'All namespaces'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-gc;completion'= {
            cand --snapshot 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster'
            cand -f 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --filename 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)'
            cand --kubeconfig 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand --as 'Username to impersonate'
            cand --as-group 'Group to impersonate (repeatable)'
            cand --request-timeout 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit)'
            cand -n 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --namespace 'Only this namespace (default: the context''s namespace for live clusters, all for files)'
            cand --concurrency 'Resources listed concurrently from a live cluster'
            cand --chunk-size 'Objects per list page'
            cand --gc-version 'Emulate this kube-controller-manager release''s GC (default: the cluster''s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)'
            cand --color 'Colour: auto (only on a terminal and without NO_COLOR), always, never'
            cand -R 'Walk directories given with -f recursively'
            cand --recursive 'Walk directories given with -f recursively'
            cand -A 'All namespaces'
            cand --all-namespaces 'All namespaces'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'kubectl-gc;help'= {
            cand audit 'Classify every ownerReference as the GC would and report what is wrong'
            cand collect 'Show what the GC would delete or patch (dry run), or preview a delete''s cascade'
            cand snapshot 'Write a snapshot of every deletable resource''s object metadata'
            cand completion 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-gc;help;audit'= {
        }
        &'kubectl-gc;help;collect'= {
        }
        &'kubectl-gc;help;snapshot'= {
        }
        &'kubectl-gc;help;completion'= {
        }
        &'kubectl-gc;help;help'= {
        }
    ]
    $completions[$command]
}

@echo off
rem kubectl 1.26 and later runs this to complete "kubectl gc ...": keep it on PATH.
"%~dp0kubectl-gc.exe" __complete %*

//go:build unix

package pipeline

import "syscall"

func processGroup() int { return syscall.Getpgrp() }

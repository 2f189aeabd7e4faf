//go:build !unix

package pipeline

func processGroup() int { return 0 }

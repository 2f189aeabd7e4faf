package dialogue

// split cuts the turns into dialogues: at headers that name a new
// dialogue, and wherever the turns before and after share no speaker (at
// least three turns and two speakers on each side).
func (a *assembler) split() []Dialogue {
	n := len(a.turns)
	if n == 0 && len(a.narr) == 0 {
		return nil
	}
	cuts := a.cuts()
	if len(cuts) == 0 {
		d := Dialogue{Turns: a.turns}
		if len(a.narr) > 0 {
			d.Narration = make([]string, len(a.narr))
			d.NarrationAt = make([]int, len(a.narr))
			for i, x := range a.narr {
				d.Narration[i], d.NarrationAt[i] = x.text, x.at
			}
		}
		return []Dialogue{d}
	}
	ds := make([]Dialogue, 0, len(cuts)+1)
	bounds := append(append([]int{0}, cuts...), n)
	ni := 0
	for c := 0; c+1 < len(bounds); c++ {
		lo, hi := bounds[c], bounds[c+1]
		d := Dialogue{Turns: a.turns[lo:hi:hi]}
		for i := range d.Turns {
			d.Turns[i].Index = i
		}
		for ; ni < len(a.narr); ni++ {
			x := a.narr[ni]
			if hi < n && (x.at > hi || (x.at == hi && !a.beforeBoundary(x.item, hi))) {
				break
			}
			d.Narration = append(d.Narration, x.text)
			d.NarrationAt = append(d.NarrationAt, x.at-lo)
		}
		ds = append(ds, d)
	}
	return ds
}

// beforeBoundary reports whether item it stands before a marker that lies
// between turn cut-1 and turn cut.
func (a *assembler) beforeBoundary(it, cut int) bool {
	lo, hi := a.turnIt[cut-1], a.turnIt[cut]
	for k := len(a.marks) - 1; k >= 0; k-- {
		m := a.marks[k]
		if m > lo && m < hi {
			return it < m
		}
	}
	return false
}

func (a *assembler) cuts() []int {
	n := len(a.turns)
	var cuts []int
	for _, h := range a.hard {
		if h > 0 && h < n {
			cuts = append(cuts, h)
		}
	}
	if n < 6 {
		return cuts
	}
	// last occurrence of each speaker
	last := make([]int, n)
	for i := range n {
		last[i] = i
		for j := n - 1; j > i; j-- {
			if a.names[j] == a.names[i] {
				last[i] = j
				break
			}
		}
	}
	var dis []int
	lo := 0
	maxLast := -1
	for k := 1; k < n; k++ {
		if last[k-1] > maxLast {
			maxLast = last[k-1]
		}
		if maxLast >= k || k-lo < 3 || n-k < 3 || (!a.gap[k] && (k-lo < 4 || n-k < 4)) {
			continue
		}
		if distinct(a.names[lo:k]) < 2 || distinct(a.names[k:]) < 2 || !repeats(a.names[lo:k]) || !repeats(a.names[k:]) {
			// a dialogue is a conversation: someone on each side speaks
			// twice; a scene whose speakers rotate (远亲1 ... 远亲22, each
			// once or so) is one dialogue
			continue
		}
		dis = append(dis, k)
		lo = k
	}
	if len(dis) == 0 {
		return cuts
	}
	// merge with the header cuts, in order
	all := append(cuts, dis...)
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j] < all[j-1]; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	out := all[:0]
	for i, c := range all {
		if i == 0 || c != all[i-1] {
			out = append(out, c)
		}
	}
	return out
}

func distinct(names []string) int {
	n := 0
	for i, x := range names {
		seen := false
		for _, y := range names[:i] {
			if x == y {
				seen = true
				break
			}
		}
		if !seen {
			n++
			if n >= 2 {
				return n
			}
		}
	}
	return n
}

// repeats reports whether some name occurs twice.
func repeats(names []string) bool {
	for i, x := range names {
		for _, y := range names[:i] {
			if x == y {
				return true
			}
		}
	}
	return false
}

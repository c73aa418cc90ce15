package solver

// A binary heap over a slice, generic over its element: the element's
// before method says which of two goes nearer the top. The requeued pods'
// heap is this one. The hot heaps keep code of their own, measurably
// faster (the order inlines): the class heaps of scored nodes (nodeHeap),
// the preemption candidates, blocks and keys (candHeap, blockHeap,
// keyHeap), and the indexed heaps of domain splits and level cells.

// heapElem is an element type T whose pointer orders it.
type heapElem[T any] interface {
	*T
	before(*T) bool
}

// siftUp moves a[i] up to its place.
func siftUp[T any, P heapElem[T]](a []T, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !P(&a[i]).before(&a[p]) {
			return
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

// siftDown moves a[i] down to its place.
func siftDown[T any, P heapElem[T]](a []T, i int) {
	n := len(a)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && P(&a[r]).before(&a[l]) {
			m = r
		}
		if !P(&a[m]).before(&a[i]) {
			return
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
}

// heapPush appends e and moves it up to its place.
func heapPush[T any, P heapElem[T]](a []T, e T) []T {
	a = append(a, e)
	siftUp[T, P](a, len(a)-1)
	return a
}

// heapPop removes the top; the last element takes its place.
func heapPop[T any, P heapElem[T]](a []T) []T {
	n := len(a) - 1
	a[0] = a[n]
	a = a[:n]
	siftDown[T, P](a, 0)
	return a
}

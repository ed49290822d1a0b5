package orders

// ProcessBatch processes every order and sums the amounts.
func ProcessBatch(batch []Order) (int, error) {
	sum := 0
	for _, o := range batch {
		t, err := Process(o)
		if err != nil {
			return 0, err
		}
		sum += t.Amount
	}
	return sum, nil
}

// samples/blind-go: a Go order service on pgx v4 (Debian's
// golang-github-jackc-pgx-v4-dev, GOPATH mode) driving PostgreSQL 15.
//
//	shop HOST PORT DURATION_S REQUESTERS OUTDIR
//
// A pgxpool of 8 connections shared by REQUESTERS goroutines, each running
// "requests" (one code path each, picked at random) until DURATION_S has
// passed. pgx uses the extended protocol and prepares and caches every
// statement (stmtcache_N on the server). Each transaction attempt is
// recorded client side as one JSON line in OUTDIR/records.jsonl: its code
// path (the Go func), the backend pid of the pool connection it ran on,
// every statement's client start/end (µs, client clock), the rows it locks,
// the outcome and SQLSTATE, and whether it was retried. OUTDIR/clock.json
// holds the server-minus-client clock offset of the fastest of 50 round
// trips.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
)

type Lock struct {
	Rel string `json:"rel"`
	Key string `json:"key"`
}

type Stmt struct {
	SQL      string `json:"sql"`
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Locks    []Lock `json:"locks,omitempty"`
	SQLState string `json:"sqlstate,omitempty"`
}

type Record struct {
	Path      string  `json:"path"`
	Req       int64   `json:"req"`
	Attempt   int     `json:"attempt"`
	PID       uint32  `json:"pid"`
	AcqStart  int64   `json:"acquire_start"`
	AcqEnd    int64   `json:"acquire_end"`
	Start     int64   `json:"start"`
	End       int64   `json:"end"`
	Stmts     []*Stmt `json:"stmts"`
	Outcome   string  `json:"outcome"` // commit, rollback (after an error)
	SQLState  string  `json:"sqlstate,omitempty"`
	Retried   bool    `json:"retried"`
	SlowCall  []int64 `json:"slow_call,omitempty"` // [start, end] of the outbound call
	Params    []any   `json:"params"`
}

func now() int64 { return time.Now().UnixMicro() }

type recorder struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (r *recorder) write(rec *Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.enc.Encode(rec); err != nil {
		panic(err)
	}
}

// tx is one attempt: a pool connection, its transaction, the record.
type tx struct {
	ctx  context.Context
	conn *pgxpool.Conn
	t    pgx.Tx
	rec  *Record
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return "client"
}

// exec runs one statement in the attempt's transaction, recording it.
func (x *tx) exec(locks []Lock, sql string, args ...any) error {
	s := &Stmt{SQL: sql, Locks: locks, Start: now()}
	x.rec.Stmts = append(x.rec.Stmts, s)
	rows, err := x.t.Query(x.ctx, sql, args...)
	if err == nil {
		for rows.Next() {
		}
		rows.Close()
		err = rows.Err()
	}
	s.End = now()
	if err != nil {
		s.SQLState = sqlstate(err)
	}
	return err
}

// run makes one attempt of fn: acquire a pool connection, BEGIN, fn,
// COMMIT (or ROLLBACK on an error). It returns the SQLSTATE of a failure.
func run(ctx context.Context, pool *pgxpool.Pool, rec *Record, fn func(*tx) error, setup, teardown string) string {
	rec.AcqStart = now()
	conn, err := pool.Acquire(ctx)
	rec.AcqEnd = now()
	if err != nil {
		panic(err)
	}
	defer conn.Release()
	rec.PID = conn.Conn().PgConn().PID()
	if setup != "" {
		if _, err := conn.Exec(ctx, setup); err != nil {
			panic(err)
		}
	}
	x := &tx{ctx: ctx, conn: conn, rec: rec}
	rec.Start = now()
	x.t, err = conn.Begin(ctx)
	if err != nil {
		panic(err)
	}
	err = fn(x)
	if err == nil {
		s := &Stmt{SQL: "COMMIT", Start: now()}
		rec.Stmts = append(rec.Stmts, s)
		err = x.t.Commit(ctx)
		s.End = now()
		if err != nil {
			s.SQLState = sqlstate(err)
		}
	}
	if err != nil {
		rec.SQLState = sqlstate(err)
		s := &Stmt{SQL: "ROLLBACK", Start: now()}
		rec.Stmts = append(rec.Stmts, s)
		_ = x.t.Rollback(ctx)
		s.End = now()
		rec.Outcome = "rollback"
	} else {
		rec.Outcome = "commit"
	}
	rec.End = now()
	if teardown != "" {
		if _, err := conn.Exec(ctx, teardown); err != nil {
			panic(err)
		}
	}
	return rec.SQLState
}

func sleepMs(lo, hi int, rng *rand.Rand) {
	time.Sleep(time.Duration(lo+rng.Intn(hi-lo+1)) * time.Millisecond)
}

// placeOrder: lock the product, call place_order() (PL/pgSQL: takes the
// stock, inserts the order; its trigger bumps today's daily_totals row),
// render the receipt, commit.
func placeOrder(rng *rand.Rand, today string) (func(*tx) error, []any) {
	product := 1 + rng.Intn(20)
	if rng.Intn(100) < 40 {
		product = 1
	}
	customer := 1 + rng.Intn(5000)
	qty := 1 + rng.Intn(3)
	return func(x *tx) error {
		p := []Lock{{"products", strconv.Itoa(product)}}
		if err := x.exec(p, "SELECT id, stock, price FROM products WHERE id = $1 FOR UPDATE", product); err != nil {
			return err
		}
		if err := x.exec([]Lock{{"products", strconv.Itoa(product)}, {"daily_totals", today}},
			"SELECT place_order($1, $2, $3)", product, customer, qty); err != nil {
			return err
		}
		sleepMs(20, 60, rng) // render the receipt
		return nil
	}, []any{product, customer, qty}
}

// reserveWithPayment: lock the SKU, call the payment provider (300-800 ms)
// with the row held, then reserve.
func reserveWithPayment(rng *rand.Rand) (func(*tx) error, []any) {
	sku := fmt.Sprintf("SKU-%d", 1+rng.Intn(10))
	if rng.Intn(100) < 40 {
		sku = "SKU-1"
	}
	return func(x *tx) error {
		l := []Lock{{"inventory", sku}}
		if err := x.exec(l, "SELECT sku, on_hand, reserved FROM inventory WHERE sku = $1 FOR UPDATE", sku); err != nil {
			return err
		}
		s := now()
		sleepMs(300, 800, rng) // the payment provider
		x.rec.SlowCall = []int64{s, now()}
		return x.exec(l, "UPDATE inventory SET reserved = reserved + 1 WHERE sku = $1", sku)
	}, []any{sku}
}

// transferCredit: lock both accounts in request order (no sorting: two
// opposite transfers deadlock), move the money.
func transferCredit(rng *rand.Rand) (func(*tx) error, []any) {
	from := 1 + rng.Intn(4)
	to := 1 + rng.Intn(3)
	if to >= from {
		to++
	}
	amount := 1 + rng.Intn(100)
	return func(x *tx) error {
		if err := x.exec([]Lock{{"accounts", strconv.Itoa(from)}},
			"SELECT balance FROM accounts WHERE id = $1 FOR UPDATE", from); err != nil {
			return err
		}
		sleepMs(30, 100, rng) // fraud check
		if err := x.exec([]Lock{{"accounts", strconv.Itoa(to)}},
			"SELECT balance FROM accounts WHERE id = $1 FOR UPDATE", to); err != nil {
			return err
		}
		if err := x.exec([]Lock{{"accounts", strconv.Itoa(from)}},
			"UPDATE accounts SET balance = balance - $2 WHERE id = $1", from, amount); err != nil {
			return err
		}
		return x.exec([]Lock{{"accounts", strconv.Itoa(to)}},
			"UPDATE accounts SET balance = balance + $2 WHERE id = $1", to, amount)
	}, []any{from, to, amount}
}

// restock: SET lock_timeout = '500ms' on the connection, update the SKU;
// on a lock timeout it gives up (no retry). RESET before the connection
// goes back to the pool.
func restock(rng *rand.Rand) (func(*tx) error, []any) {
	sku := fmt.Sprintf("SKU-%d", 1+rng.Intn(10))
	if rng.Intn(100) < 50 {
		sku = "SKU-1"
	}
	n := 1 + rng.Intn(50)
	return func(x *tx) error {
		return x.exec([]Lock{{"inventory", sku}},
			"UPDATE inventory SET on_hand = on_hand + $2 WHERE sku = $1", sku, n)
	}, []any{sku, n}
}

// productPage: a read, no row lock.
func productPage(rng *rand.Rand) (func(*tx) error, []any) {
	product := 1 + rng.Intn(20)
	return func(x *tx) error {
		return x.exec(nil, "SELECT p.name, p.price, p.stock, (SELECT count(*) FROM orders o WHERE o.product_id = p.id) FROM products p WHERE p.id = $1", product)
	}, []any{product}
}

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: shop HOST PORT DURATION_S REQUESTERS OUTDIR")
		os.Exit(2)
	}
	host, port, outdir := os.Args[1], os.Args[2], os.Args[5]
	dur, _ := strconv.Atoi(os.Args[3])
	nreq, _ := strconv.Atoi(os.Args[4])
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(fmt.Sprintf(
		"host=%s port=%s user=postgres dbname=shop application_name=shop-api pool_max_conns=8 pool_min_conns=8", host, port))
	if err != nil {
		panic(err)
	}
	pool, err := pgxpool.ConnectConfig(ctx, cfg)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	// The clock: server minus client, from the fastest of 50 round trips.
	best, offset := int64(1<<62), int64(0)
	for i := 0; i < 50; i++ {
		var us int64
		t0 := now()
		if err := pool.QueryRow(ctx, "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint").Scan(&us); err != nil {
			panic(err)
		}
		t1 := now()
		if t1-t0 < best {
			best, offset = t1-t0, us-(t0+t1)/2
		}
	}
	var today string
	if err := pool.QueryRow(ctx, "SELECT current_date::text").Scan(&today); err != nil {
		panic(err)
	}
	cj, _ := json.Marshal(map[string]int64{"offset_us": offset, "rtt_us": best})
	if err := os.WriteFile(outdir+"/clock.json", append(cj, '\n'), 0o644); err != nil {
		panic(err)
	}

	f, err := os.Create(outdir + "/records.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	rc := &recorder{enc: json.NewEncoder(f)}
	deadline := time.Now().Add(time.Duration(dur) * time.Second)
	var reqs int64
	var reqMu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < nreq; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(1000 + g)))
			for time.Now().Before(deadline) {
				reqMu.Lock()
				reqs++
				req := reqs
				reqMu.Unlock()
				pick := rng.Intn(100)
				var path, setup, teardown string
				var mk func() (func(*tx) error, []any)
				maxTries := 1
				switch {
				case pick < 40:
					path, maxTries = "placeOrder", 3
					mk = func() (func(*tx) error, []any) { return placeOrder(rng, today) }
				case pick < 55:
					path = "reserveWithPayment"
					mk = func() (func(*tx) error, []any) { return reserveWithPayment(rng) }
				case pick < 75:
					path, maxTries = "transferCredit", 5
					mk = func() (func(*tx) error, []any) { return transferCredit(rng) }
				case pick < 85:
					path, setup, teardown = "restock", "SET lock_timeout = '500ms'", "RESET lock_timeout"
					mk = func() (func(*tx) error, []any) { return restock(rng) }
				default:
					path = "productPage"
					mk = func() (func(*tx) error, []any) { return productPage(rng) }
				}
				fn, params := mk()
				for attempt := 1; attempt <= maxTries; attempt++ {
					rec := &Record{Path: path, Req: req, Attempt: attempt, Params: params}
					st := run(ctx, pool, rec, fn, setup, teardown)
					// retry deadlocks (40P01) and serialization failures only
					rec.Retried = (st == "40P01" || st == "40001") && attempt < maxTries
					rc.write(rec)
					if !rec.Retried {
						break
					}
					time.Sleep(time.Duration(10+rng.Intn(40)) * time.Millisecond)
				}
				time.Sleep(time.Duration(5+rng.Intn(30)) * time.Millisecond) // think time
			}
		}(g)
	}
	wg.Wait()
}

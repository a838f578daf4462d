-- Ticketing schema for the blind-pool sample. Hot rows: events(1) (seats
-- counter every booking decrements), event_totals(1) (bumped by the
-- bookings and checkins triggers, held FOR UPDATE by settlements),
-- accounts 1-3 (transfers), ticket_prices(1) (REPEATABLE READ reprices).
-- Every hot table has locked_at/locked_pid, set by a BEFORE trigger to the
-- server's clock_timestamp() and pg_backend_pid() once the row is locked:
-- the app reads them back (RETURNING *) as the truth of when it got the row.
CREATE TABLE events (
    id          integer PRIMARY KEY,
    name        text NOT NULL,
    seats_left  integer NOT NULL,
    locked_at   timestamptz,
    locked_pid  integer
);
CREATE TABLE event_totals (
    event_id    integer PRIMARY KEY REFERENCES events (id),
    booked      integer NOT NULL DEFAULT 0,
    checked_in  integer NOT NULL DEFAULT 0,
    settled     integer NOT NULL DEFAULT 0,
    locked_at   timestamptz,
    locked_pid  integer
);
CREATE TABLE bookings (
    id          bigserial PRIMARY KEY,
    event_id    integer NOT NULL REFERENCES events (id),
    customer    text NOT NULL,
    seats       integer NOT NULL,
    partner_ref text,
    totals_locked_at  timestamptz,
    totals_locked_pid integer,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE checkins (
    id          bigserial PRIMARY KEY,
    event_id    integer NOT NULL REFERENCES events (id),
    ticket      text NOT NULL,
    totals_locked_at  timestamptz,
    totals_locked_pid integer,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE accounts (
    id          integer PRIMARY KEY,
    owner       text NOT NULL,
    balance     numeric(12, 2) NOT NULL,
    locked_at   timestamptz,
    locked_pid  integer
);
CREATE TABLE ticket_prices (
    event_id    integer PRIMARY KEY REFERENCES events (id),
    price       numeric(10, 2) NOT NULL,
    locked_at   timestamptz,
    locked_pid  integer
);

CREATE FUNCTION stamp_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.locked_at := clock_timestamp();
    NEW.locked_pid := pg_backend_pid();
    RETURN NEW;
END $$;
CREATE TRIGGER events_stamp BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION stamp_lock();
CREATE TRIGGER event_totals_stamp BEFORE UPDATE ON event_totals
    FOR EACH ROW EXECUTE FUNCTION stamp_lock();
CREATE TRIGGER accounts_stamp BEFORE UPDATE ON accounts
    FOR EACH ROW EXECUTE FUNCTION stamp_lock();
CREATE TRIGGER ticket_prices_stamp BEFORE UPDATE ON ticket_prices
    FOR EACH ROW EXECUTE FUNCTION stamp_lock();

-- The per-event totals row every booking and check-in bumps. BEFORE INSERT,
-- so the totals row is locked before the new row is RETURNed.
CREATE FUNCTION bump_booked() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t event_totals;
BEGIN
    UPDATE event_totals SET booked = booked + NEW.seats
     WHERE event_id = NEW.event_id RETURNING * INTO t;
    NEW.totals_locked_at := t.locked_at;
    NEW.totals_locked_pid := t.locked_pid;
    RETURN NEW;
END $$;
CREATE TRIGGER bookings_bump BEFORE INSERT ON bookings
    FOR EACH ROW EXECUTE FUNCTION bump_booked();

CREATE FUNCTION bump_checked_in() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t event_totals;
BEGIN
    UPDATE event_totals SET checked_in = checked_in + 1
     WHERE event_id = NEW.event_id RETURNING * INTO t;
    NEW.totals_locked_at := t.locked_at;
    NEW.totals_locked_pid := t.locked_pid;
    RETURN NEW;
END $$;
CREATE TRIGGER checkins_bump BEFORE INSERT ON checkins
    FOR EACH ROW EXECUTE FUNCTION bump_checked_in();

INSERT INTO events VALUES (1, 'Main stage', 1000000, NULL, NULL),
                          (2, 'Side stage', 1000000, NULL, NULL),
                          (3, 'Workshop', 1000000, NULL, NULL);
INSERT INTO event_totals (event_id) VALUES (1), (2), (3);
INSERT INTO accounts VALUES (1, 'venue', 100000, NULL, NULL),
                            (2, 'promoter', 100000, NULL, NULL),
                            (3, 'artist', 100000, NULL, NULL);
INSERT INTO ticket_prices VALUES (1, 50, NULL, NULL), (2, 30, NULL, NULL), (3, 20, NULL, NULL);

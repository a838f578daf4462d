-- box-office: events with a seat count, the seats themselves, per-venue
-- sales totals kept by a trigger, and page-hit counters.
CREATE TABLE venues (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE events (
    id int PRIMARY KEY, venue_id int NOT NULL REFERENCES venues,
    name text NOT NULL, seats_left int NOT NULL, updated_at timestamptz);
CREATE TABLE venue_totals (
    venue_id int PRIMARY KEY REFERENCES venues, sold int NOT NULL DEFAULT 0,
    revenue_cents bigint NOT NULL DEFAULT 0, updated_at timestamptz);
CREATE TABLE bookings (
    id bigserial PRIMARY KEY, event_id int NOT NULL REFERENCES events,
    price_cents int NOT NULL, payment_ref text, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE seats (
    id int PRIMARY KEY, event_id int NOT NULL REFERENCES events, holder text,
    version int NOT NULL DEFAULT 0, updated_at timestamptz);
CREATE TABLE page_counters (
    slug text PRIMARY KEY, hits bigint NOT NULL DEFAULT 0, updated_at timestamptz);

-- every row change stamps updated_at with the moment the row was written
-- (a BEFORE ROW trigger runs once the row is locked)
CREATE FUNCTION set_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.updated_at := clock_timestamp();
    RETURN NEW;
END $$;
CREATE TRIGGER events_updated_at BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER venue_totals_updated_at BEFORE UPDATE ON venue_totals
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER seats_updated_at BEFORE UPDATE ON seats
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();
CREATE TRIGGER page_counters_updated_at BEFORE UPDATE ON page_counters
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- a booking adds to its venue's totals (every event of venue 1 shares a row)
CREATE FUNCTION add_to_venue_totals() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE venue_totals t SET sold = t.sold + 1,
           revenue_cents = t.revenue_cents + NEW.price_cents
      FROM events e
     WHERE e.id = NEW.event_id AND t.venue_id = e.venue_id;
    RETURN NULL;
END $$;
CREATE TRIGGER bookings_totals AFTER INSERT ON bookings
    FOR EACH ROW EXECUTE FUNCTION add_to_venue_totals();

INSERT INTO venues VALUES (1, 'Arena'), (2, 'Club');
INSERT INTO events VALUES (1, 1, 'Finale', 100000, NULL), (2, 1, 'Matinee', 100000, NULL),
                          (3, 2, 'Jazz night', 100000, NULL);
INSERT INTO venue_totals (venue_id) VALUES (1), (2);
INSERT INTO seats (id, event_id) VALUES (1, 1), (2, 1), (3, 1), (4, 2);
INSERT INTO page_counters (slug) VALUES ('home'), ('events');
VACUUM ANALYZE;

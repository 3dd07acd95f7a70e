//! Devices in simulation: one server each, with its waiting requests, the
//! cylinder its arm rests on, its stream of random numbers and its meters.
//!
//! A device knows nothing of processes: a request carries a purpose the
//! model reads back when the request is done. A request's service is its
//! seek, its rotational wait and its transfer: the wait drawn uniformly
//! over a revolution, or under the positional rule the time until its
//! first sector comes round after the seek, and then its sectors at the
//! rotation's pace (`disk::Platter`).

use super::super::{Device, Order, Place, Region};
use crate::measure::StationMeter;
use rand::RngExt;
use std::collections::{BTreeMap, VecDeque};
use tpsim_core::{LONGEST_SAMPLE, SimTime, Stream};

/// One request to a device.
#[derive(Clone, Copy, Debug)]
pub(super) struct Request<P> {
    /// What the model does when it is done.
    pub(super) purpose: P,
    /// Bytes transferred.
    pub(super) bytes: f64,
    /// When it reached the device.
    pub(super) arrived: SimTime,
    /// The cylinder it falls on (0 on a device without an arm).
    pub(super) cylinder: u32,
    /// Its first sector's number in the cylinder (0 unless the arm has a
    /// geometry and the sector is known).
    pub(super) offset: u32,
}

/// Requests waiting for the device.
#[derive(Debug)]
enum Waiting<P> {
    /// In order of arrival.
    Fifo(VecDeque<Request<P>>),
    /// By cylinder, then arrival (the counter orders arrivals).
    ByCylinder(BTreeMap<(u32, u64), Request<P>>, u64),
}

/// A device in simulation.
#[derive(Debug)]
pub(super) struct DeviceState<P> {
    waiting: Waiting<P>,
    busy: Option<Request<P>>,
    /// The cylinder the arm rests on.
    head: u32,
    rng: Stream,
    /// Its queue, busy time and responses.
    pub(super) meter: StationMeter,
}

impl<P: Copy> DeviceState<P> {
    /// An idle device described by `spec`, its arm at cylinder 0.
    pub(super) fn new(spec: &Device, rng: Stream) -> DeviceState<P> {
        let by_cylinder = spec
            .arm
            .as_ref()
            .is_some_and(|a| a.order == Order::Disksort);
        DeviceState {
            waiting: if by_cylinder {
                Waiting::ByCylinder(BTreeMap::new(), 0)
            } else {
                Waiting::Fifo(VecDeque::new())
            },
            busy: None,
            head: 0,
            rng,
            meter: StationMeter::new(),
        }
    }

    /// A request for `bytes` in `region` of the disk, arriving now, at
    /// `at` if the file's layout places it: otherwise its cylinder is drawn
    /// uniformly from the region's area, and under the positional rule its
    /// first sector uniformly from the cylinder's (no draw on a device
    /// without an arm). A request longer than a sector runs on from there.
    pub(super) fn request(
        &mut self,
        spec: &Device,
        purpose: P,
        bytes: f64,
        region: Region,
        at: Option<Place>,
        now: SimTime,
    ) -> Request<P> {
        let place = spec.arm.as_ref().map_or(
            Place {
                cylinder: 0,
                offset: 0,
            },
            |arm| match at {
                Some(place) => place,
                None => {
                    let area = arm.area(region);
                    let cylinder = area.first + self.rng.random_range(0..area.len());
                    let offset = arm
                        .platter()
                        .map_or(0, |p| self.rng.random_range(0..p.geometry().per_cylinder()));
                    Place { cylinder, offset }
                }
            },
        );
        Request {
            purpose,
            bytes,
            arrived: now,
            cylinder: place.cylinder,
            offset: place.offset,
        }
    }

    /// The request in service, if any.
    #[cfg(test)]
    pub(super) fn in_service(&self) -> Option<&Request<P>> {
        self.busy.as_ref()
    }

    /// `request` joins the device: if it is idle, its service starts and
    /// its length is returned.
    pub(super) fn arrive(
        &mut self,
        spec: &Device,
        request: Request<P>,
        now: SimTime,
    ) -> Option<SimTime> {
        self.meter.present.add(now, 1.0);
        if self.busy.is_some() {
            match &mut self.waiting {
                Waiting::Fifo(queue) => queue.push_back(request),
                Waiting::ByCylinder(queue, arrivals) => {
                    *arrivals += 1;
                    queue.insert((request.cylinder, *arrivals), request);
                }
            }
            return None;
        }
        self.meter.busy.add(now, 1.0);
        Some(self.start(spec, request, now))
    }

    /// The request in service is done: it is returned, with the length of
    /// the next one's service if another was waiting.
    pub(super) fn finish(&mut self, spec: &Device, now: SimTime) -> (Request<P>, Option<SimTime>) {
        let done = self.busy.take().expect("a device finishes what it serves");
        self.meter.depart(done.arrived, now);
        let next = match self.next_waiting() {
            Some(next) => Some(self.start(spec, next, now)),
            None => {
                self.meter.busy.add(now, -1.0);
                None
            }
        };
        (done, next)
    }

    /// Takes the request to serve next out of the queue.
    fn next_waiting(&mut self) -> Option<Request<P>> {
        match &mut self.waiting {
            Waiting::Fifo(queue) => queue.pop_front(),
            Waiting::ByCylinder(queue, _) => {
                // The lowest cylinder at or beyond the arm, else the lowest.
                let key = queue
                    .range((self.head, 0)..)
                    .next()
                    .or_else(|| queue.iter().next())
                    .map(|(k, _)| *k)?;
                queue.remove(&key)
            }
        }
    }

    /// Starts serving `request`: seek, rotational latency, transfer. Every
    /// service takes at least one tick, so even a system that does nothing
    /// but thrash moves its clock on.
    fn start(&mut self, spec: &Device, request: Request<P>, now: SimTime) -> SimTime {
        self.meter.start_service(request.arrived, now);
        if let Some((arm, platter)) = spec.arm.as_ref().and_then(|a| Some((a, a.platter()?))) {
            // The positional rule: the arm on its cylinder after the seek,
            // the platter brings the first sector round, the sectors pass.
            let seek = arm.seek.time(self.head.abs_diff(request.cylinder));
            let ready = now + SimTime::from_secs_f64(seek);
            let track = SimTime::from_secs_f64(arm.seek.time(1)).as_nanos();
            let sectors = platter.geometry().sectors_of(request.bytes);
            let (end, crossed) = platter.transfer(ready.as_nanos(), request.offset, sectors, track);
            self.head = request
                .cylinder
                .saturating_add(crossed)
                .min(arm.cylinders - 1);
            self.busy = Some(request);
            return SimTime::from_nanos(end) - now;
        }
        let latency = if spec.revolution > 0.0 {
            self.rng.random::<f64>() * spec.revolution
        } else {
            0.0
        };
        let seek = match &spec.arm {
            Some(arm) => {
                let distance = self.head.abs_diff(request.cylinder);
                self.head = request.cylinder;
                arm.seek.time(distance)
            }
            None => spec.seek.sample(&mut self.rng),
        };
        self.busy = Some(request);
        let service = seek + latency + request.bytes / spec.rate;
        SimTime::from_secs_f64(service.min(LONGEST_SAMPLE)).max(SimTime::from_nanos(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::{Area, Arm, Rotation, SeekCurve};
    use tpsim_core::{Dist, Streams};

    fn disk(order: Order) -> Device {
        Device {
            name: "disk".into(),
            seek: Dist::deterministic(0.0).unwrap(),
            arm: Some(Arm {
                cylinders: 200,
                seek: SeekCurve::fit(200, 0.001, 0.010, 0.020).unwrap(),
                order,
                swap_area: Area { first: 0, last: 9 },
                file_system: Area {
                    first: 10,
                    last: 199,
                },
                cylinder_bytes: None,
                geometry: None,
                rotation: None,
            }),
            revolution: 0.0,
            rate: 1e6,
            fault_cpu: SimTime::ZERO,
            interrupt_cpu: SimTime::ZERO,
        }
    }

    /// The cylinders served, in order, when requests at `cylinders` arrive
    /// at once at an idle disk whose arm rests at `head`.
    fn served(order: Order, head: u32, cylinders: &[u32]) -> Vec<u32> {
        let spec = disk(order);
        let mut d = DeviceState::new(&spec, Streams::new(1, 0).stream("disk"));
        d.head = head;
        let now = SimTime::ZERO;
        let at = |c| Request {
            purpose: (),
            bytes: 0.0,
            arrived: now,
            cylinder: c,
            offset: 0,
        };
        // The first goes straight into service.
        let _ = d.arrive(&spec, at(head), now);
        cylinders.iter().for_each(|&c| {
            assert!(d.arrive(&spec, at(c), now).is_none());
        });
        let mut order = Vec::new();
        loop {
            let (_, next) = d.finish(&spec, now);
            match next {
                Some(_) => order.push(d.busy.unwrap().cylinder),
                None => return order,
            }
        }
    }

    #[test]
    fn disksort_sweeps_up_then_starts_again_from_the_bottom() {
        let requests = [98, 183, 37, 122, 14, 124, 65, 67];
        assert_eq!(
            served(Order::Disksort, 53, &requests),
            [65, 67, 98, 122, 124, 183, 14, 37]
        );
        assert_eq!(served(Order::Fcfs, 53, &requests), requests);
    }

    #[test]
    fn requests_at_one_cylinder_keep_their_order_of_arrival() {
        let spec = disk(Order::Disksort);
        let mut d = DeviceState::new(&spec, Streams::new(1, 0).stream("disk"));
        let now = SimTime::ZERO;
        for purpose in 0..4 {
            let r = Request {
                purpose,
                bytes: 0.0,
                arrived: now,
                cylinder: 50,
                offset: 0,
            };
            let _ = d.arrive(&spec, r, now);
        }
        let order: Vec<i32> = (0..4).map(|_| d.finish(&spec, now).0.purpose).collect();
        assert_eq!(order, [0, 1, 2, 3]);
    }

    #[test]
    fn the_seek_follows_the_arm_and_requests_fall_in_their_area() {
        let spec = disk(Order::Fcfs);
        let mut d = DeviceState::<()>::new(&spec, Streams::new(1, 0).stream("disk"));
        let curve = spec.arm.as_ref().unwrap().seek;
        let now = SimTime::ZERO;
        let mut head = 0u32;
        for i in 0..200 {
            let region = if i % 2 == 0 {
                Region::Swap
            } else {
                Region::Files
            };
            let r = d.request(&spec, (), 1000.0, region, None, now);
            let area = spec.arm.as_ref().unwrap().area(region);
            assert!((area.first..=area.last).contains(&r.cylinder));
            let service = d.arrive(&spec, r, now).expect("idle");
            let expected = curve.time(head.abs_diff(r.cylinder)) + 0.001;
            assert_eq!(service, SimTime::from_secs_f64(expected));
            head = r.cylinder;
            let _ = d.finish(&spec, now);
        }
    }

    /// An RM03 (32 sectors of 512 bytes, 5 tracks, 823 cylinders, 3600
    /// rpm, 6/30/55 ms seeks) under the positional rule with search lead
    /// `lead`: swap area on cylinders 0-99, file system 100-822.
    fn rm03(lead: u32) -> Device {
        let rm03 = crate::system::disk::drive("rm03").unwrap();
        let arm = rm03.arm(
            Area { first: 0, last: 99 },
            Area {
                first: 100,
                last: 822,
            },
        );
        Device {
            arm: Some(Arm {
                rotation: Some(Rotation { rpm: 3600, lead }),
                ..arm
            }),
            revolution: 1.0 / 60.0,
            rate: 983_040.0,
            ..disk(Order::Fcfs)
        }
    }

    /// The RM03's sector boundaries: 32 sectors 60 times a second, boundary
    /// j at ⌈j · 10⁹ / 1920⌉ ns.
    fn boundary(j: u64) -> u64 {
        (j * 1_000_000_000).div_ceil(1920)
    }

    /// When each of `blocks` (512 bytes each) is read, one after the other
    /// by a reader that asks for the next as the last arrives, on `spec`
    /// idle with its arm at cylinder 0, the first asked for at time 0 \[ns\].
    fn read_in_turn(spec: &Device, blocks: &[Place]) -> Vec<u64> {
        let mut d = DeviceState::new(spec, Streams::new(1, 0).stream("disk"));
        let mut now = SimTime::ZERO;
        blocks
            .iter()
            .map(|&place| {
                let r = d.request(spec, (), 512.0, Region::Files, Some(place), now);
                now += d.arrive(spec, r, now).expect("idle");
                let _ = d.finish(spec, now);
                now.as_nanos()
            })
            .collect()
    }

    /// Blocks at sectors `sectors` of cylinder 100.
    fn at(sectors: impl Iterator<Item = u32>) -> Vec<Place> {
        sectors
            .map(|offset| Place {
                cylinder: 100,
                offset,
            })
            .collect()
    }

    #[test]
    fn a_file_read_block_by_block_on_a_fresh_file_system_costs_three_sectors_a_block() {
        // mkfs's interleave puts the blocks of a new file 3 blocks apart:
        // from the start of a group at cylinder 100, at sectors 2, 5, 8, ...
        // (512-byte blocks, one sector each; 40 of them reach track 3).
        let spec = rm03(2);
        let finished = read_in_turn(&spec, &at((0..40).map(|i| 2 + 3 * i)));
        // The seek from cylinder 0 to 100, then the search for sector 0
        // (two sectors before the first block): the first boundary 32k at
        // or after the arm is on the cylinder.
        let curve = spec.arm.as_ref().unwrap().seek;
        let ready = (curve.time(100) * 1e9).round() as u64;
        let k = (0..)
            .map(|r| 32 * r)
            .find(|&j| boundary(j) >= ready)
            .unwrap();
        // Block 0 starts two sectors after the search's sector and ends at
        // boundary k + 3. Each next block's search sector is the one its
        // predecessor ends on, so it starts two sectors later and ends three
        // sectors after it: block i ends at boundary k + 3 + 3i.
        for (i, &t) in finished.iter().enumerate() {
            assert_eq!(t, boundary(k + 3 + 3 * i as u64), "block {i}");
        }
        // 3 sectors, 1.5625 ms a block after the first, to the nanosecond.
        assert_eq!(finished[39] - finished[0], 39 * 1_562_500);
    }

    #[test]
    fn blocks_in_order_wait_a_revolution_each_behind_a_search_lead_and_none_without() {
        // Contiguous blocks at sectors 0, 1, 2, ... Lead 2: each next
        // block's search sector (one before the last block's) has passed
        // when the last ends: the search waits 31 sectors, the transfer
        // two more and one to read, 33 sectors a block. No lead: one sector.
        let blocks = at(0..20);
        for (lead, per_block) in [(2, 33), (0, 1)] {
            let finished = read_in_turn(&rm03(lead), &blocks);
            for (i, w) in finished.windows(2).enumerate() {
                let j = w[0] * 1920 / 1_000_000_000;
                assert_eq!(boundary(j), w[0], "ends on a boundary");
                assert_eq!(
                    w[1],
                    boundary(j + per_block),
                    "lead {lead}, block {}",
                    i + 1
                );
            }
        }
    }

    #[test]
    fn interleaved_contiguous_and_aged_files_read_in_the_order_the_rotation_says() {
        // One file of 60 blocks of 512 bytes, laid out by each layout on
        // the RM03's file system, read block by block. With 32V's search
        // lead the interleave's 3 sectors a block beat the contiguous
        // layout's revolution a block, and both beat the aged file's seek
        // and half a revolution; with no lead the contiguous file is read at
        // a sector a block and beats the interleave.
        use crate::system::layout::{Interleave, Layout, place};
        let read = |lead: u32, layout: Layout| {
            let spec = rm03(lead);
            let arm = spec.arm.as_ref().unwrap();
            let blocks: Vec<Place> = (0..60)
                .map(|i| place(layout, arm, 512, 7, i, 42).unwrap())
                .collect();
            let finished = read_in_turn(&spec, &blocks);
            // The time after the first block, its seek aside.
            (finished[59] - finished[0]) as f64 / 59.0
        };
        let interleaved = Layout::Interleaved(Interleave::MKFS);
        let sector = 1e9 / 1920.0;
        let mut by_lead = Vec::new();
        for lead in [2, 0] {
            let per_block = [interleaved, Layout::Contiguous, Layout::Aged].map(|l| read(lead, l));
            by_lead.push(per_block);
        }
        let [[i2, c2, a2], [i0, c0, a0]] = [by_lead[0], by_lead[1]];
        // Interleaved: 3 sectors a block, or more where the file crosses a
        // cylinder (an arm's move and the wait for sector 0).
        assert!(i2 >= 3.0 * sector - 1.0 && i2 < 4.0 * sector, "{i2}");
        assert!(
            (i0 - i2).abs() < 1.0,
            "the lead costs the interleave nothing"
        );
        assert!(c2 > 32.0 * sector && c0 < 2.0 * sector, "{c2} {c0}");
        assert!(i2 < c2 && c2 < a2, "lead 2: {i2} {c2} {a2}");
        assert!(c0 < i0 && i0 < a0, "no lead: {c0} {i0} {a0}");
        // The aged file's blocks each seek over the area: more than the
        // track-to-track seek plus a few sectors on average.
        assert!(a0 > 0.006e9 && a2 > 0.006e9, "{a0} {a2}");
    }

    #[test]
    fn under_the_positional_rule_a_request_s_sector_is_drawn_in_its_cylinder() {
        let spec = rm03(2);
        let mut d = DeviceState::<()>::new(&spec, Streams::new(1, 0).stream("disk"));
        let offsets: Vec<u32> = (0..2000)
            .map(|_| {
                let r = d.request(&spec, (), 65_536.0, Region::Swap, None, SimTime::ZERO);
                assert!(r.cylinder < 100);
                r.offset
            })
            .collect();
        assert!(offsets.iter().all(|&o| o < 160));
        // Spread over the cylinder: each quarter holds 500 ± 100.
        for q in 0..4 {
            let n = offsets.iter().filter(|&&o| o / 40 == q).count();
            assert!((400..=600).contains(&n), "quarter {q}: {n}");
        }
    }
}

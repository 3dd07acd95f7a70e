//! Devices in simulation: one server each, with its waiting requests, the
//! cylinder its arm rests on, its stream of random numbers and its meters.
//!
//! A device knows nothing of processes: a request carries a purpose the
//! model reads back when the request is done.

use super::super::{Device, Order, Region};
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

    /// A request for `bytes` in `region` of the disk, arriving now: its
    /// cylinder is drawn uniformly from the region's area (no draw on a
    /// device without an arm).
    pub(super) fn request(
        &mut self,
        spec: &Device,
        purpose: P,
        bytes: f64,
        region: Region,
        at: Option<u32>,
        now: SimTime,
    ) -> Request<P> {
        let cylinder = spec.arm.as_ref().map_or(0, |arm| match at {
            // A block whose cylinder the file's layout says.
            Some(cylinder) => cylinder,
            None => {
                let area = arm.area(region);
                area.first + self.rng.random_range(0..area.len())
            }
        });
        Request {
            purpose,
            bytes,
            arrived: now,
            cylinder,
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
    use crate::system::{Area, Arm, SeekCurve};
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
}

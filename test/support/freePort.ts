// A free TCP port on 127.0.0.1 for the tests and benches (one home, issue 37 item 3): the one
// scripts/lib/freePort.mjs that npm start and the e2e flows use too.
export { freePort } from '../../scripts/lib/freePort.mjs';

import { startNats } from './test/unit/nats/natsServers';
import { openNatsStore } from './relay/server/nats/wiring';
import { ChannelConfigs } from './relay/server/channels';
(async () => {
  const c = await startNats(3);
  try {
    const { store, shared } = await openNatsStore({ servers: c.urls }, {}, console.log);
    console.log('store open');
    const f = shared(new ChannelConfigs({ forward: ['http://127.0.0.1:9/x'] }));
    await f.start();
    console.log('started');
    f.stop(); await store.close();
  } catch (e) { console.log('ERR', e); }
  await c.stop();
})();

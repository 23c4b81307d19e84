package dev.opensearch;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

/**
 * An OpenSearch 2.19.1 node with the modules and the k-NN plugin loaded from the classpath: a
 * single-node cluster by default, or one node of a local multi-node cluster when given
 * {@code discovery.seed_hosts} (then {@code cluster.initial_cluster_manager_nodes} names the nodes
 * that vote in the first election; dev/opensearch_node.py passes both).
 *
 * <p>Why: there is no Docker in the dev environment, and the release tarball is not on Maven Central,
 * but the server jar, the module client jars and the k-NN plugin zip are. {@link Node}'s protected
 * constructor accepts plugin classes directly, which is how OpenSearch's own tests embed a node.
 *
 * <p>Arguments are {@code key=value} node settings (for example {@code http.port=9200
 * path.home=.stack/opensearch}); they override the defaults below. The process blocks until it is
 * terminated; a shutdown hook closes the node so its data directory is left consistent.
 */
public final class DevNode extends Node {

    /**
     * Loaded by name so the k-NN jars (unpacked from a zip, not a Maven dependency) only need to be on
     * the runtime classpath.
     */
    private static final List<String> PLUGIN_CLASSES = List.of(
        "org.opensearch.transport.Netty4Plugin",
        "org.opensearch.analysis.common.CommonAnalysisPlugin",
        "org.opensearch.painless.PainlessPlugin",
        "org.opensearch.index.mapper.MapperExtrasPlugin",
        "org.opensearch.knn.plugin.KNNPlugin"
    );

    private DevNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
        super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "dev-node"), plugins, true);
    }

    public static void main(String[] args) throws Exception {
        Settings.Builder builder = Settings.builder()
            .put("cluster.name", "retrieval-dev")
            .put("node.name", "dev-node")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", "9200")
            .put("transport.port", "9300-9400")
            .put("path.home", ".stack/opensearch")
            // A dev box's disk is often fuller than the production watermarks allow; never go read-only.
            .put("cluster.routing.allocation.disk.threshold_enabled", false);
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got: " + arg);
            }
            builder.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        Settings settings = builder.build();
        if (settings.hasValue("discovery.seed_hosts")) {
            // A member of a multi-node cluster finds its peers; single-node discovery would refuse them.
            Settings.Builder member = Settings.builder().put(settings);
            member.remove("discovery.type");
            settings = member.build();
        }
        Path home = Path.of(settings.get("path.home")).toAbsolutePath();
        settings = Settings.builder()
            .put(settings)
            .put("path.home", home.toString())
            .put("path.data", settings.get("path.data", home.resolve("data").toString()))
            .put("path.logs", settings.get("path.logs", home.resolve("logs").toString()))
            .build();

        Thread.setDefaultUncaughtExceptionHandler(DevNode::onUncaught);
        DevNode node = new DevNode(settings, loadPlugins());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                node.awaitClose(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "dev-node-shutdown"));
        node.start();
        stopped.await();
    }

    /**
     * Like a node started by OpenSearch's Bootstrap: an {@link Error} in any thread halts the process.
     * Without this an embedded node swallows it and the request that hit it hangs forever; the usual
     * cause here is a faiss/nmslib k-NN field, whose native libraries the Maven plugin zip lacks.
     */
    private static void onUncaught(Thread thread, Throwable error) {
        error.printStackTrace();
        if (!(error instanceof Error)) {
            return;
        }
        String message = String.valueOf(error.getMessage());
        if (message.contains("opensearchknn") || message.contains("JNIService")) {
            System.err.println("FATAL: k-NN native engines (faiss, nmslib) are not available in the dev node; "
                + "map knn_vector fields with \"method\": {\"engine\": \"lucene\", ...}");
        }
        System.err.println("FATAL: " + error + " in thread " + thread.getName() + "; halting the node");
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }

    @SuppressWarnings("unchecked")
    private static Collection<Class<? extends Plugin>> loadPlugins() throws ClassNotFoundException {
        List<Class<? extends Plugin>> plugins = new ArrayList<>();
        for (String name : PLUGIN_CLASSES) {
            plugins.add((Class<? extends Plugin>) Class.forName(name).asSubclass(Plugin.class));
        }
        return plugins;
    }
}

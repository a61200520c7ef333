# serving_step: llama3-70b-serve: one serving step (decode with its share of prefill) broken down
# Draws serving_step.svg and serving_step.png from serving_step.dat; run `gnuplot serving_step.gp` in this folder.
do for [fmt in 'svg png'] {
	reset
	if (fmt eq 'svg') {
		set terminal svg dynamic size 960,540 font 'sans,12' background '#ffffff' noenhanced
	} else {
		set terminal pngcairo size 960,540 font 'sans,10' background '#ffffff' noenhanced
	}
	set output 'serving_step.'.fmt
	set style textbox opaque noborder
	set multiplot title 'llama3-70b-serve: one serving step (decode with its share of prefill) broken down' font ',14'
	set label 132 'llama3-70b-serve | hardware as_of 2026-08-21 to 2026-08-22 | roofcost 0.1.0' at screen 0.01, screen 0.018 left font ',9' tc rgb '#555555'
	# panel 1
	set lmargin at screen 0.0900; set rmargin at screen 0.7350
	set bmargin at screen 0.1400; set tmargin at screen 0.8800
	set title '' font ',11'
	set xlabel ''
	set ylabel 'ms per step'
	set grid xtics ytics lc rgb '#e4e4e4' lw 1
	set border 3 lc rgb '#444444'
	set tics nomirror out scale 0.6
	set xtics ('p5en.48xlarge' 0, 'trn2.48xlarge' 1) scale 0
	set xrange [-0.6:1.6]
	set yrange [0:*]
	set offsets 0, 0, graph 0.06, 0
	set key at screen 0.7550, screen 0.8800 left top vertical Left reverse samplen 2.5 spacing 1.1 font ',10' noenhanced
	plot 'serving_step.dat' index 3 using ($1+0.0000):2:(0.5700) with boxes fs solid 0.85 border lc rgb '#333333' fc rgb '#999933' title 'runtime per layer', \
	     'serving_step.dat' index 2 using ($1+0.0000):2:(0.5700) with boxes fs solid 0.85 border lc rgb '#333333' fc rgb '#d55e00' title 'network: node', \
	     'serving_step.dat' index 1 using ($1+0.0000):2:(0.5700) with boxes fs solid 0.85 border lc rgb '#333333' fc rgb '#009e73' title 'kernel floors', \
	     'serving_step.dat' index 0 using ($1+0.0000):2:(0.5700) with boxes fs solid 0.85 border lc rgb '#333333' fc rgb '#e69f00' title 'memory-bound ops', \
	     'serving_step.dat' index 3 using 1:2:(sprintf('%.1f', $2)) with labels boxed offset 0,0.6 font ',8' notitle
	unset label; unset arrow; unset logscale; set xtics autofreq; set ytics autofreq; unset offsets
	set xrange [*:*]; set yrange [*:*]; set format x; set format y
	unset multiplot
	unset output
}
